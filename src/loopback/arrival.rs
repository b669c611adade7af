//! When a request arrived. A server thread may be descheduled between the moment a request's
//! bytes reach its socket and the moment it reads them — by several milliseconds on a busy
//! machine — and the politeness tests measure the gaps between request starts to the
//! millisecond. So on Linux each read asks the kernel for the time the data was received
//! (`SO_TIMESTAMPNS`), which on loopback is within microseconds of the client's send;
//! elsewhere the time of the read stands in.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

/// What the server reads requests from and writes answers to: a TCP connection, plain or
/// under TLS.
pub(super) trait Conn: Read + Write {
    /// When the bytes of the latest read reached the socket.
    fn arrival(&self) -> Instant;
    /// The TCP connection itself (raw handlers write to it directly).
    fn tcp(&mut self) -> &mut TcpStream;
}

impl Conn for TimedConn {
    fn arrival(&self) -> Instant {
        self.last_arrival
    }
    fn tcp(&mut self) -> &mut TcpStream {
        &mut self.tcp
    }
}

impl Conn for rustls::StreamOwned<rustls::ServerConnection, TimedConn> {
    fn arrival(&self) -> Instant {
        self.sock.last_arrival
    }
    fn tcp(&mut self) -> &mut TcpStream {
        &mut self.sock.tcp
    }
}

/// A server connection that remembers when the bytes it last read arrived.
#[derive(Debug)]
pub(super) struct TimedConn {
    pub(super) tcp: TcpStream,
    /// When the data of the latest read reached the socket.
    pub(super) last_arrival: Instant,
}

impl TimedConn {
    pub(super) fn new(tcp: TcpStream) -> Self {
        #[cfg(target_os = "linux")]
        {
            use nix::sys::socket::{setsockopt, sockopt::ReceiveTimestampns};
            // Without it reads still work; they are stamped when read instead.
            let _ = setsockopt(&tcp, ReceiveTimestampns, &true);
        }
        TimedConn {
            tcp,
            last_arrival: Instant::now(),
        }
    }
}

impl Read for TimedConn {
    #[cfg(target_os = "linux")]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::io::IoSliceMut;
        use std::os::fd::AsRawFd;
        use std::time::{Duration, SystemTime};

        use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
        use nix::sys::time::TimeSpec;

        let mut iov = [IoSliceMut::new(buf)];
        let mut space = nix::cmsg_space!(TimeSpec);
        let (n, received) = {
            let msg = recvmsg::<()>(
                self.tcp.as_raw_fd(),
                &mut iov,
                Some(&mut space),
                MsgFlags::empty(),
            )
            .map_err(io::Error::from)?;
            let received = msg.cmsgs().ok().and_then(|mut c| {
                c.find_map(|m| match m {
                    ControlMessageOwned::ScmTimestampns(ts) => Some(ts),
                    _ => None,
                })
            });
            (msg.bytes, received)
        };
        let (now, wall) = clock_pair();
        self.last_arrival = received
            .and_then(|ts| {
                let at = SystemTime::UNIX_EPOCH
                    + Duration::new(u64::try_from(ts.tv_sec()).ok()?, ts.tv_nsec() as u32);
                // The data's age, measured on the one clock the kernel stamped it with.
                let age = wall.duration_since(at).ok()?;
                now.checked_sub(age)
            })
            .unwrap_or(now);
        Ok(n)
    }

    #[cfg(not(target_os = "linux"))]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.tcp.read(buf)?;
        self.last_arrival = Instant::now();
        Ok(n)
    }
}

/// `Instant::now()` and `SystemTime::now()` read at the same moment, give or take 100 µs.
/// See: issue 18 — read one after the other, a thread descheduled in between (a busy
/// machine) stamped a request milliseconds early, and a test measuring a 1 s `Retry-After`
/// saw 0.999 s.
#[cfg(target_os = "linux")]
fn clock_pair() -> (Instant, std::time::SystemTime) {
    let mut best = None;
    for _ in 0..8 {
        let before = Instant::now();
        let wall = std::time::SystemTime::now();
        let after = Instant::now();
        let spread = after - before;
        // The wall clock was read somewhere in between: the middle is at most half off.
        let middle = before + spread / 2;
        if spread < std::time::Duration::from_micros(100) {
            return (middle, wall);
        }
        if best.is_none_or(|(s, _, _)| spread < s) {
            best = Some((spread, middle, wall));
        }
    }
    best.map_or_else(
        || (Instant::now(), std::time::SystemTime::now()),
        |(_, middle, wall)| (middle, wall),
    )
}

impl Write for TimedConn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}
