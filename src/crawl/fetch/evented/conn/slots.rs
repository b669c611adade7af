//! The connections' slots: deadlines kept in order, idle connections found again for a
//! site's origin, and new connections opened (the last address first, the others when it
//! fails).

use super::*;

impl Connections {
    /// Connection `index`'s request `generation` ends by `at`. A deadline stays in the heap
    /// until it passes, though most requests end long before theirs: a fast crawl made
    /// 470,000 requests within one timeout. Past twice the connections, the heap is rebuilt
    /// with the deadlines of requests still under way.
    pub(super) fn add_deadline(&mut self, at: Instant, index: usize, generation: u64) {
        self.deadlines.push(Reverse((at, index, generation)));
        if self.deadlines.len() > 2 * self.conns.len() + 64 {
            let conns = &self.conns;
            self.deadlines.retain(|Reverse((_, i, g))| {
                conns
                    .get(*i)
                    .and_then(Option::as_ref)
                    .is_some_and(|c| c.generation == *g)
            });
        }
    }

    /// Requests past their deadline fail with `Timeout`.
    pub(super) fn expire(&mut self, now: Instant) {
        while let Some(&Reverse((at, i, generation))) = self.deadlines.peek() {
            if at > now {
                break;
            }
            self.deadlines.pop();
            let Some(conn) = self.conns.get(i).and_then(Option::as_ref) else {
                continue;
            };
            if conn.generation != generation {
                continue;
            }
            // Connecting lasts until the TLS handshake is over too (`ConnectTimeoutSeconds`
            // bounds both, as the blocking client's connect does).
            let connecting =
                !conn.connected || conn.tls.as_ref().is_some_and(|t| t.is_handshaking());
            let late = now >= conn.deadline || (connecting && now >= conn.connect_by);
            let busy = conn.req.is_some() || matches!(conn.state, State::Drain(..));
            if late && busy {
                self.fail(i, FetchError::Timeout);
            }
        }
    }

    /// An idle connection of `site` to `origin`, if one is left that is quiet: one on which
    /// something arrived since its last answer (stray bytes, a close the poll has not
    /// reported yet) is closed instead (`wire::quiet`).
    pub(super) fn take_idle(&mut self, site: SiteId, origin: u64) -> Option<usize> {
        loop {
            let list = self.idle.get_mut(&site)?;
            let conns = &self.conns;
            let at = list.iter().rposition(|&i| {
                conns
                    .get(i)
                    .and_then(Option::as_ref)
                    .is_some_and(|c| c.origin == origin)
            })?;
            let i = list.swap_remove(at);
            if list.is_empty() {
                self.idle.remove(&site);
            }
            self.idle_count = self.idle_count.saturating_sub(1);
            let Some(conn) = self.conns[i].as_mut() else {
                continue;
            };
            if wire::quiet(&conn.stream, conn.tls.as_deref_mut()) {
                conn.reused = true;
                return Some(i);
            }
            self.close(i);
        }
    }

    /// Starts connecting to the last of `addrs` (the others are tried if it fails).
    pub(super) fn open(
        &mut self,
        site: SiteId,
        origin: u64,
        tls: Option<Box<ClientConnection>>,
        mut addrs: Vec<SocketAddr>,
        now: Instant,
    ) -> Result<usize, FetchError> {
        let Some(addr) = addrs.pop() else {
            return Err(FetchError::HostNotFound);
        };
        let mut stream = TcpStream::connect(addr).map_err(connect_error)?;
        let index = self.free.pop().unwrap_or(self.conns.len());
        self.poll
            .registry()
            .register(
                &mut stream,
                Token(index),
                Interest::READABLE | Interest::WRITABLE,
            )
            .map_err(|e| FetchError::Other(e.to_string()))?;
        let conn = Conn {
            stream,
            tls,
            site,
            origin,
            addrs,
            addr,
            state: State::Idle,
            req: None,
            url: None,
            carried: Default::default(),
            connected: false,
            reused: false,
            close_after: false,
            head_close: false,
            filled: 0,
            answered: false,
            input: Vec::new(),
            start: 0,
            end: 0,
            out: Vec::new(),
            out_pos: 0,
            turn: None,
            generation: 0,
            deadline: now + self.settings.request_timeout,
            connect_by: now + self.settings.connect_timeout,
            body: Vec::new(),
            encoding: None,
            raw_limit: 0,
            cap: 0,
            truncate: false,
            archive: self.settings.archive,
        };
        if index == self.conns.len() {
            self.conns.push(Some(conn));
        } else {
            self.conns[index] = Some(conn);
        }
        Ok(index)
    }
}
