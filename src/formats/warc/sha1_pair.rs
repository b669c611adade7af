//! The two SHA-1 digests of a response record at once: the block's (the HTTP head, then the
//! body) and the payload's (the body alone). They are two chains over the same bytes that no
//! single pass can share, and one chain of the CPU's SHA instructions waits on each round's
//! result: two chains interleaved keep the unit busy while each waits (on the Rust
//! documentation's archive, hashing every body twice one after the other was a sixth of what
//! archiving costs). Without SHA instructions, the `sha1` crate hashes one after the other.

use sha1::{Digest, Sha1};

/// SHA-1 of `head` then `body` (the block), and of `body` alone (the payload).
pub fn block_and_payload(head: &[u8], body: &[u8]) -> ([u8; 20], [u8; 20]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("sha")
            && std::arch::is_x86_feature_detected!("sse4.1")
            && std::arch::is_x86_feature_detected!("ssse3")
        {
            // SAFETY: the features the function is compiled for were detected just above.
            return unsafe { shani::pair(head, body) };
        }
    }
    one_after_the_other(head, body)
}

/// [`block_and_payload`] with the `sha1` crate, one chain after the other.
fn one_after_the_other(head: &[u8], body: &[u8]) -> ([u8; 20], [u8; 20]) {
    let mut block = Sha1::new();
    block.update(head);
    block.update(body);
    (block.finalize().into(), Sha1::digest(body).into())
}

/// The message a chain hashes — `head` then `body` — cut into padded 64-byte blocks (FIPS
/// 180-4: a 1 bit, zeros, the length in bits as 8 bytes big-endian).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Message<'a> {
    head: &'a [u8],
    body: &'a [u8],
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
impl Message<'_> {
    fn len(&self) -> usize {
        self.head.len() + self.body.len()
    }

    /// Blocks, padding included.
    fn blocks(&self) -> usize {
        (self.len() + 9).div_ceil(64)
    }

    /// Block `k`: where it lies whole in the body, the body's own bytes; else `buf` filled
    /// from the head, the body and the padding.
    fn block<'b>(&'b self, k: usize, buf: &'b mut [u8; 64]) -> &'b [u8; 64] {
        let (start, len) = (k * 64, self.len());
        if start >= self.head.len() && start + 64 <= len {
            let at = start - self.head.len();
            if let Some(whole) = self.body.get(at..at + 64).and_then(|b| b.try_into().ok()) {
                return whole;
            }
        }
        for (i, slot) in buf.iter_mut().enumerate() {
            let at = start + i;
            *slot = if at < self.head.len() {
                self.head[at]
            } else if at < len {
                self.body[at - self.head.len()]
            } else if at == len {
                0x80
            } else {
                0
            };
        }
        if k + 1 == self.blocks() {
            buf[56..].copy_from_slice(&((len as u64) * 8).to_be_bytes());
        }
        buf
    }
}

#[cfg(target_arch = "x86_64")]
mod shani {
    use super::Message;
    use std::arch::x86_64::*;

    /// A chain's state: `abcd` as the SHA instructions hold it, and `e`.
    #[derive(Clone, Copy)]
    struct Lane {
        abcd: __m128i,
        e: __m128i,
    }

    macro_rules! rounds4 {
        ($h0:expr, $h1:expr, $wk:expr, $i:literal) => {
            _mm_sha1rnds4_epu32($h0, _mm_sha1nexte_epu32($h1, $wk), $i)
        };
    }

    macro_rules! schedule {
        ($v0:expr, $v1:expr, $v2:expr, $v3:expr) => {
            _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32($v0, $v1), $v2), $v3)
        };
    }

    /// Four rounds of both chains: `w[e]` scheduled from `w[a..=d]`, then `hb` from `ha`.
    macro_rules! both {
        ($w:ident, $ha:ident, $hb:ident, $a:literal, $b:literal, $c:literal, $d:literal, $e:literal, $i:literal) => {
            for l in 0..2 {
                $w[l][$e] = schedule!($w[l][$a], $w[l][$b], $w[l][$c], $w[l][$d]);
                $hb[l] = rounds4!($ha[l], $hb[l], $w[l][$e], $i);
            }
        };
    }

    /// One block of each chain (the schedule and rounds of the `sha1` crate's SHA-NI code,
    /// for two chains side by side).
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn step(lanes: &mut [Lane; 2], blocks: [&[u8; 64]; 2]) {
        let mask = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0A0B_0C0D_0E0F);
        let zero = _mm_setzero_si128();
        let mut w = [[zero; 5]; 2];
        let (mut h0, mut h1) = ([zero; 2], [zero; 2]);
        for l in 0..2 {
            for (j, word) in w[l].iter_mut().take(4).enumerate() {
                // SAFETY: 16 bytes at 16 * j < 64 of a 64-byte block; an unaligned load.
                let p = unsafe { blocks[l].as_ptr().add(16 * j).cast::<__m128i>() };
                *word = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(p) }, mask);
            }
            h0[l] = lanes[l].abcd;
            h1[l] = _mm_add_epi32(lanes[l].e, w[l][0]);
        }
        // Rounds 0..20.
        for l in 0..2 {
            h1[l] = _mm_sha1rnds4_epu32(h0[l], h1[l], 0);
            h0[l] = rounds4!(h1[l], h0[l], w[l][1], 0);
            h1[l] = rounds4!(h0[l], h1[l], w[l][2], 0);
            h0[l] = rounds4!(h1[l], h0[l], w[l][3], 0);
        }
        both!(w, h0, h1, 0, 1, 2, 3, 4, 0);
        // Rounds 20..40.
        both!(w, h1, h0, 1, 2, 3, 4, 0, 1);
        both!(w, h0, h1, 2, 3, 4, 0, 1, 1);
        both!(w, h1, h0, 3, 4, 0, 1, 2, 1);
        both!(w, h0, h1, 4, 0, 1, 2, 3, 1);
        both!(w, h1, h0, 0, 1, 2, 3, 4, 1);
        // Rounds 40..60.
        both!(w, h0, h1, 1, 2, 3, 4, 0, 2);
        both!(w, h1, h0, 2, 3, 4, 0, 1, 2);
        both!(w, h0, h1, 3, 4, 0, 1, 2, 2);
        both!(w, h1, h0, 4, 0, 1, 2, 3, 2);
        both!(w, h0, h1, 0, 1, 2, 3, 4, 2);
        // Rounds 60..80.
        both!(w, h1, h0, 1, 2, 3, 4, 0, 3);
        both!(w, h0, h1, 2, 3, 4, 0, 1, 3);
        both!(w, h1, h0, 3, 4, 0, 1, 2, 3);
        both!(w, h0, h1, 4, 0, 1, 2, 3, 3);
        both!(w, h1, h0, 0, 1, 2, 3, 4, 3);
        for l in 0..2 {
            lanes[l].abcd = _mm_add_epi32(lanes[l].abcd, h0[l]);
            lanes[l].e = _mm_sha1nexte_epu32(h1[l], lanes[l].e);
        }
    }

    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn digest(lane: Lane) -> [u8; 20] {
        let words = [
            _mm_extract_epi32(lane.abcd, 3),
            _mm_extract_epi32(lane.abcd, 2),
            _mm_extract_epi32(lane.abcd, 1),
            _mm_extract_epi32(lane.abcd, 0),
            _mm_extract_epi32(lane.e, 3),
        ];
        let mut out = [0; 20];
        for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&(w as u32).to_be_bytes());
        }
        out
    }

    /// [`super::block_and_payload`] with the SHA instructions.
    ///
    /// # Safety
    /// The CPU must have the `sha`, `sse2`, `ssse3` and `sse4.1` features.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) unsafe fn pair(head: &[u8], body: &[u8]) -> ([u8; 20], [u8; 20]) {
        let start = Lane {
            abcd: _mm_set_epi32(
                0x6745_2301_u32 as i32,
                0xEFCD_AB89_u32 as i32,
                0x98BA_DCFE_u32 as i32,
                0x1032_5476,
            ),
            e: _mm_set_epi32(0xC3D2_E1F0_u32 as i32, 0, 0, 0),
        };
        let messages = [Message { head, body }, Message { head: &[], body }];
        let counts = [messages[0].blocks(), messages[1].blocks()];
        let mut lanes = [start; 2];
        let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
        for k in 0..counts[0].max(counts[1]) {
            // A chain with no block left steps on a copy, thrown away.
            let live = [k < counts[0], k < counts[1]];
            let kept = lanes;
            let blocks = [
                messages[0].block(k.min(counts[0] - 1), &mut a),
                messages[1].block(k.min(counts[1] - 1), &mut b),
            ];
            step(&mut lanes, blocks);
            for l in 0..2 {
                if !live[l] {
                    lanes[l] = kept[l];
                }
            }
        }
        (digest(lanes[0]), digest(lanes[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_digests_are_the_sha1_of_the_block_and_of_the_payload() {
        // Every length around the block and padding boundaries, heads of every alignment.
        let bytes: Vec<u8> = (0..2_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for head_len in [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 300] {
            for body_len in (0..200).chain([447, 448, 503, 504, 511, 512, 1_000, 1_700]) {
                let (head, body) = (&bytes[..head_len], &bytes[head_len..head_len + body_len]);
                assert_eq!(
                    block_and_payload(head, body),
                    one_after_the_other(head, body),
                    "head {head_len} body {body_len}"
                );
            }
        }
        // And the known answer: SHA-1("abc").
        let (block, payload) = block_and_payload(b"a", b"bc");
        assert_eq!(block, payload_of(b"abc"));
        assert_eq!(
            data_encoding::HEXLOWER.encode(&block),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(payload, payload_of(b"bc"));
    }

    fn payload_of(bytes: &[u8]) -> [u8; 20] {
        Sha1::digest(bytes).into()
    }

    #[test]
    fn a_block_of_the_message_is_the_bytes_then_the_padding() {
        let m = Message {
            head: b"ab",
            body: b"c",
        };
        let mut buf = [0xFF; 64];
        let block = m.block(0, &mut buf);
        assert_eq!(&block[..4], b"abc\x80");
        assert!(block[4..56].iter().all(|&b| b == 0));
        assert_eq!(&block[56..], &24u64.to_be_bytes());
        assert_eq!(m.blocks(), 1);
        // 56 bytes leave no room for the length: a second block.
        let body = [1u8; 54];
        let m = Message {
            head: b"ab",
            body: &body,
        };
        assert_eq!(m.blocks(), 2);
    }
}
