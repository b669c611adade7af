//! The hook that tells a site's [`Pacer`] when a request was written: a ureq connector that
//! wraps every connection of a site's agent (TCP or TLS, fresh or pooled) in a transport that
//! reports each write of a request. The delay between a site's requests is then counted from
//! the moment the bytes reached the kernel, not from when a thread decided to send them.

use std::sync::Arc;

use ureq::unversioned::transport::{Buffers, ConnectionDetails, Connector, NextTimeout, Transport};

use crate::schedule::Pacer;

/// Wraps the connections of one site's agent.
#[derive(Debug)]
pub(super) struct PacedConnector {
    pub(super) pacer: Arc<Pacer>,
}

impl Connector<Box<dyn Transport>> for PacedConnector {
    type Out = PacedTransport;

    fn connect(
        &self,
        _details: &ConnectionDetails<'_>,
        chained: Option<Box<dyn Transport>>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        Ok(chained.map(|inner| PacedTransport {
            inner,
            pacer: Arc::clone(&self.pacer),
        }))
    }
}

/// A connection that reports its writes to its site's pacer.
#[derive(Debug)]
pub(super) struct PacedTransport {
    inner: Box<dyn Transport>,
    pacer: Arc<Pacer>,
}

impl Transport for PacedTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let written = self.inner.transmit_output(amount, timeout);
        self.pacer.sent();
        written
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.inner.await_input(timeout)
    }

    fn is_open(&mut self) -> bool {
        self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}
