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
    /// Whether the kernel stamped the latest read's data (else it is stamped when read).
    pub(super) stamped: bool,
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
            stamped: false,
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
        self.stamped = received.is_some();
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

/// A connected pair of loopback sockets whose receiving end asks for arrival stamps, held for
/// a server's life so that the kernel stamps every arriving packet from its start.
///
/// See: issue 63 item 8 — Linux turns packet stamping on for the first socket that asks
/// through a deferred work item (`net_enable_timestamp`, jump labels): until a kernel worker
/// runs it, data arrives unstamped and is stamped when read. On a loaded machine that worker
/// ran late, the first requests of a test (robots.txt) were stamped when the server thread got
/// to read them — 45 ms late — and a politeness check saw two requests 0.83 ms apart that the
/// crawler had sent 46 ms apart. Waiting here until a byte arrives stamped closes that window.
#[derive(Debug)]
pub(super) struct StampsOn {
    _pair: Option<(TcpStream, TcpStream)>,
}

impl StampsOn {
    /// Turns stamping on and waits (at most a few seconds) until it holds.
    pub(super) fn wait() -> StampsOn {
        StampsOn {
            _pair: Self::pair().ok(),
        }
    }

    #[cfg(target_os = "linux")]
    fn pair() -> io::Result<(TcpStream, TcpStream)> {
        use std::time::Duration;
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let mut client = TcpStream::connect(listener.local_addr()?)?;
        let (server, _) = listener.accept()?;
        let mut conn = TimedConn::new(server);
        conn.tcp.set_read_timeout(Some(Duration::from_secs(1)))?;
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            client.write_all(b"x")?;
            let mut b = [0u8; 16];
            if conn.read(&mut b)? > 0 && conn.stamped {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok((client, conn.tcp))
    }

    #[cfg(not(target_os = "linux"))]
    fn pair() -> io::Result<(TcpStream, TcpStream)> {
        Err(io::Error::other("stamps are Linux's"))
    }
}

impl Write for TimedConn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    // See: issue 63 item 8 — while stamping is held on, a new connection's first request is
    // stamped by the kernel, not when it is read (without it, ~half the first reads of a
    // fresh process were unstamped).
    #[test]
    fn a_new_connection_is_stamped_from_its_first_read() {
        let _on = StampsOn::wait();
        for _ in 0..5 {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let mut conn = TimedConn::new(listener.accept().unwrap().0);
            client.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
            let mut b = [0u8; 64];
            assert!(conn.read(&mut b).unwrap() > 0);
            assert!(conn.stamped, "the first read was not stamped");
        }
    }
}
