//! A re-crawl's `304 Not Modified` in the event-driven loop (`Recrawl`, SPEC §15): the
//! archived answer it stands for is walked as if the server had sent it again.

use super::{Driver, InFlight, Walker};
use crate::crawl::fetch::OwnedHead;
use crate::crawl::fetch::evented::{ConnRef, ReqId};
use crate::crawl::fetch::{HeadStep, recrawl};

impl<'a> Driver<'a> {
    /// Task `id`'s answer `head` on connection `at`: a re-crawl's 304 is taken from the
    /// archive here (`None`: the task went on); anything else is given back to be walked.
    pub(super) fn not_modified(
        &mut self,
        id: usize,
        f: InFlight<'a>,
        at: ConnRef,
        head: OwnedHead,
    ) -> Option<(InFlight<'a>, OwnedHead)> {
        let req = ReqId(id);
        if head.status == 304
            && f.conditional
            && let Some(recrawl) = self.env.recrawl
        {
            // A re-crawl's 304: the archived answer, as if sent again.
            match recrawl::unchanged_head(recrawl, &f.url, head.archived.clone()) {
                Ok(Some((head, body))) => {
                    self.conns.discard(at, req);
                    let mut f = f;
                    f.conn = None;
                    self.unchanged(id, f, head, body);
                    return None;
                }
                Ok(None) => {}
                Err(e) => {
                    self.conns.discard(at, req);
                    self.failed(id, f, e);
                    return None;
                }
            }
        }
        Some((f, head))
    }

    /// Task `id`'s request was a re-crawl's and the server said `304`: `head` and `body` are
    /// the archived answer it stands for, walked as if the server had sent them.
    fn unchanged(&mut self, id: usize, mut f: InFlight<'a>, head: OwnedHead, body: Vec<u8>) {
        let Walker::Page(walk) = &mut f.walk else {
            return;
        };
        match walk.head(&f.url, head.head(), f.started) {
            HeadStep::Next(next) => self.hop(id, f, next),
            HeadStep::Done(result) => self.finish(id, f.lease, result),
            HeadStep::Body => {
                // It waits for room among the bodies held, as a body from the network does:
                // 304s come fast, and thousands of archived bodies would wait for the parsers.
                f.head = Some(head);
                f.archived_body = Some(body);
                self.wait_for_body_room(id, f);
            }
        }
    }
}
