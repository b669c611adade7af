//! Documents made by the tests (tests/documents.rs): real PDFs written object by object with
//! their cross-reference table — pages of Helvetica text, link annotations with `URI`
//! actions — hostile ones (truncated, an object stream that inflates to gigabytes, a page
//! tree that contains itself, an array of millions of numbers), and office documents as the
//! ZIP files they are.

/// A link annotation: its URI and its `/Contents` text.
pub struct Annot<'a> {
    pub uri: &'a str,
    pub contents: Option<&'a str>,
}

/// One page: its lines of text (ASCII, one `Tj` each) and its link annotations.
pub struct Page<'a> {
    pub lines: &'a [&'a str],
    pub links: &'a [Annot<'a>],
}

/// A PDF string literal.
fn lit(s: &str) -> String {
    let mut out = String::from("(");
    for c in s.chars() {
        if matches!(c, '(' | ')' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(')');
    out
}

/// A PDF of `pages`.
pub fn pdf(pages: &[Page<'_>]) -> Vec<u8> {
    // 1 catalog, 2 page tree, 3 font; then per page: the page, its content, its annotations.
    let mut objects: Vec<Vec<u8>> = vec![Vec::new(), Vec::new(), Vec::new()];
    let mut kids = Vec::new();
    for page in pages {
        let page_id = objects.len() + 1;
        let content_id = page_id + 1;
        let annot_ids: Vec<usize> = (0..page.links.len()).map(|i| content_id + 1 + i).collect();
        kids.push(format!("{page_id} 0 R"));
        let annots = annot_ids
            .iter()
            .map(|id| format!("{id} 0 R"))
            .collect::<Vec<_>>()
            .join(" ");
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
                 /Resources << /Font << /F1 3 0 R >> >> /Contents {content_id} 0 R /Annots [{annots}] >>"
            )
            .into_bytes(),
        );
        let mut content = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
        for line in page.lines {
            content.push_str(&format!("{} Tj T*\n", lit(line)));
        }
        content.push_str("ET\n");
        objects.push(
            format!(
                "<< /Length {} >>\nstream\n{content}endstream",
                content.len()
            )
            .into_bytes(),
        );
        for (i, link) in page.links.iter().enumerate() {
            let y = 700 - 20 * i;
            let contents = link
                .contents
                .map(|c| format!(" /Contents {}", lit(c)))
                .unwrap_or_default();
            objects.push(
                format!(
                    "<< /Type /Annot /Subtype /Link /Rect [72 {y} 300 {}] /Border [0 0 0] \
                     /A << /Type /Action /S /URI /URI {} >>{contents} >>",
                    y + 14,
                    lit(link.uri)
                )
                .into_bytes(),
            );
        }
    }
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>".to_vec();
    objects[1] = format!(
        "<< /Type /Pages /Kids [{}] /Count {} >>",
        kids.join(" "),
        pages.len()
    )
    .into_bytes();
    objects[2] =
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec();
    assemble(&objects)
}

/// A PDF file of `objects` (object i + 1 is `objects[i]`), catalog first.
pub fn assemble(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A zlib stream of `copies` × 258 + 1 zero bytes, written by hand (one fixed-Huffman block of
/// a literal and back-references 258 long), 13 bits a copy: gigabytes in megabytes, made in
/// milliseconds.
pub fn zlib_zeros(copies: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        fn put(&mut self, value: u64, bits: u32) {
            self.acc |= value << self.n;
            self.n += bits;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        /// A Huffman code, most significant bit first.
        fn code(&mut self, code: u64, bits: u32) {
            let mut rev = 0;
            for i in 0..bits {
                rev |= ((code >> i) & 1) << (bits - 1 - i);
            }
            self.put(rev, bits);
        }
    }
    let mut b = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // BFINAL
    b.put(1, 2); // fixed Huffman
    b.code(0x30, 8); // literal 0
    for _ in 0..copies {
        b.code(0xC5, 8); // length 258 (code 285)
        b.code(0, 5); // distance 1
    }
    b.code(0, 7); // end of block
    if b.n > 0 {
        b.put(0, 8 - b.n);
    }
    let len = (copies as u64 * 258 + 1) % 65521;
    let adler = (len << 16) | 1;
    b.out.extend_from_slice(&(adler as u32).to_be_bytes());
    b.out
}

/// A PDF whose one object stream inflates to `copies` × 258 bytes.
pub fn pdf_bomb(copies: usize) -> Vec<u8> {
    let bomb = zlib_zeros(copies);
    let mut stream = format!(
        "<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length {} >>\nstream\n",
        bomb.len()
    )
    .into_bytes();
    stream.extend_from_slice(&bomb);
    stream.extend_from_slice(b"\nendstream");
    assemble(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        stream,
    ])
}

/// A PDF whose page tree is its own kid, whose annotation's action is itself, and an object
/// that refers to itself.
pub fn pdf_loop() -> Vec<u8> {
    assemble(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Annots [4 0 R] >>".to_vec(),
        b"<< /Type /Annot /Subtype /Link /A 4 0 R /Contents 5 0 R >>".to_vec(),
        b"5 0 R".to_vec(),
    ])
}

/// A PDF of `bytes` bytes, nearly all of it one array of zeros: tens of millions of objects
/// for a reader that builds them all.
pub fn pdf_many_objects(bytes: usize) -> Vec<u8> {
    let mut array = Vec::with_capacity(bytes + 16);
    array.extend_from_slice(b"[");
    while array.len() < bytes {
        array.extend_from_slice(b"0 ");
    }
    array.extend_from_slice(b"]");
    assemble(&[
        b"<< /Type /Catalog /Pages 2 0 R /Junk 3 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        array,
    ])
}

/// A ZIP file (stored, no compression) of `files`: what docx, xlsx and odt files are.
pub fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let crc = crc32fast::hash(data);
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = sig.to_le_bytes().to_vec();
            if central {
                h.extend_from_slice(&20u16.to_le_bytes()); // made by
            }
            h.extend_from_slice(&20u16.to_le_bytes()); // needed
            h.extend_from_slice(&0u16.to_le_bytes()); // flags
            h.extend_from_slice(&0u16.to_le_bytes()); // stored
            h.extend_from_slice(&0u32.to_le_bytes()); // time, date
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes()); // extra
            if central {
                h.extend_from_slice(&[0; 8]); // comment, disk, internal attributes
                h.extend_from_slice(&0u32.to_le_bytes()); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend_from_slice(&header(0x0403_4b50, false));
        out.extend_from_slice(data);
        central.extend_from_slice(&header(0x0201_4b50, true));
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}
