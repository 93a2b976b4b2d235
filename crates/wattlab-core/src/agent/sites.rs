//! The site table and its RTT cache (mechanism 11): per server, the SYN → SYN-ACK time, the
//! request → first response byte time and the last SRTT seen, so that later connections to
//! the same site within one page can sleep through set-up and the request's round trip.

use crate::packet::Endpoint;
use crate::time::Duration;

/// Sites remembered at once (a page rarely touches more; the oldest entry is replaced).
pub(crate) const MAX_SITES: usize = 64;

/// What the cache knows about one site (server address and port).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteEntry {
    /// The server.
    pub server: Endpoint,
    /// Last SYN → SYN-ACK time.
    pub syn_rtt: Option<Duration>,
    /// Last request → first response byte time.
    pub response_time: Option<Duration>,
    /// Last smoothed RTT of a connection to the site.
    pub srtt: Option<Duration>,
    /// Smallest RTT seen to the site: waking by it never misses a reply, as delays never
    /// fall below the path's base RTT.
    pub min_rtt: Option<Duration>,
    /// Insertion order, for replacement.
    stamp: u64,
}

/// The client's site table.
#[derive(Clone, Debug, Default)]
pub struct SiteTable {
    entries: Vec<SiteEntry>,
    clock: u64,
}

impl SiteTable {
    /// The entry for `server`, if cached.
    pub fn get(&self, server: Endpoint) -> Option<&SiteEntry> {
        self.entries.iter().find(|e| e.server == server)
    }

    /// The entry for `server`, created if missing.
    pub fn entry(&mut self, server: Endpoint) -> &mut SiteEntry {
        self.clock += 1;
        if let Some(i) = self.entries.iter().position(|e| e.server == server) {
            return &mut self.entries[i];
        }
        let fresh = SiteEntry {
            server,
            syn_rtt: None,
            response_time: None,
            srtt: None,
            min_rtt: None,
            stamp: self.clock,
        };
        if self.entries.len() < MAX_SITES {
            self.entries.push(fresh);
            let last = self.entries.len() - 1;
            return &mut self.entries[last];
        }
        let oldest = (0..self.entries.len())
            .min_by_key(|&i| self.entries[i].stamp)
            .unwrap_or(0);
        self.entries[oldest] = fresh;
        &mut self.entries[oldest]
    }

    /// Forget everything (between page requests: the seed found no correlation across pages).
    pub fn flush(&mut self) {
        self.entries.clear();
    }

    /// Number of cached sites.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl SiteEntry {
    /// When to wake after sending a SYN: the cached SYN → SYN-ACK time of an earlier
    /// connection, never later than the site's minimum RTT.
    pub fn syn_wait(&self) -> Option<Duration> {
        self.syn_rtt.map(|s| self.min_rtt.map_or(s, |m| s.min(m)))
    }

    /// When to wake after sending a request: the cached request → response time of an
    /// earlier request (the first slow-start stage follows it), never later than the
    /// site's minimum RTT.
    pub fn response_wait(&self) -> Option<Duration> {
        self.response_time
            .map(|s| self.min_rtt.map_or(s, |m| s.min(m)))
    }

    /// Record one RTT sample of a connection to this site.
    pub fn note_rtt(&mut self, sample: Duration, srtt: Option<Duration>) {
        self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
        if srtt.is_some() {
            self.srtt = srtt;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn cache_fills_within_a_page_and_flushes_between_pages() {
        let mut t = SiteTable::default();
        let s = Endpoint::new(Ipv4Addr::new(10, 0, 0, 9), 80);
        let e = t.entry(s);
        e.syn_rtt = Some(Duration::from_millis(70));
        e.note_rtt(Duration::from_millis(61), None);
        assert_eq!(
            t.get(s).and_then(|e| e.syn_wait()),
            Some(Duration::from_millis(61))
        );
        t.flush();
        assert!(t.get(s).is_none());
    }

    #[test]
    fn each_server_keeps_its_own_round_trips() {
        // A page with an origin at 20 ms and a third-party server at 90 ms: the cache is keyed
        // by server, so each later connection waits for its own server's round trip.
        let mut t = SiteTable::default();
        let origin = Endpoint::new(Ipv4Addr::new(10, 0, 0, 9), 80);
        let third = Endpoint::new(Ipv4Addr::new(10, 0, 0, 10), 80);
        for (s, ms) in [(origin, 20), (third, 90)] {
            let e = t.entry(s);
            e.syn_rtt = Some(Duration::from_millis(ms));
            e.response_time = Some(Duration::from_millis(ms + 5));
            e.note_rtt(Duration::from_millis(ms), None);
        }
        assert_eq!(t.len(), 2);
        assert_eq!(t.get(origin).and_then(|e| e.syn_wait()), Some(Duration::from_millis(20)));
        assert_eq!(t.get(third).and_then(|e| e.syn_wait()), Some(Duration::from_millis(90)));
        assert_eq!(t.get(third).and_then(|e| e.response_wait()), Some(Duration::from_millis(90)));
        // Another port of the same address is another server.
        assert!(t.get(Endpoint::new(Ipv4Addr::new(10, 0, 0, 10), 443)).is_none());
    }

    #[test]
    fn table_is_bounded() {
        let mut t = SiteTable::default();
        for i in 0..(MAX_SITES as u16 + 10) {
            t.entry(Endpoint::new(Ipv4Addr::LOCALHOST, i));
        }
        assert_eq!(t.len(), MAX_SITES);
        assert!(
            t.get(Endpoint::new(Ipv4Addr::LOCALHOST, 0)).is_none(),
            "oldest replaced"
        );
    }
}
