//! Per-address traffic totals over a capture, streaming (memory grows with the number of
//! distinct addresses, not with the number of packets, up to a cap: beyond it the counts are
//! a Misra–Gries summary, known to within [`AddressTotals::undercount`] bytes).

use std::collections::HashMap;
use std::io::Read;
use std::net::IpAddr;

use crate::{TraceError, TracePacket, TraceReader};

/// Traffic of one address: every packet it sent or received, by IP length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Packets sent or received.
    pub packets: u64,
    /// IP bytes sent or received ([`TracePacket::ip_len`]).
    pub bytes: u64,
    /// Packets sent (the address is the source).
    pub tx_packets: u64,
    /// IP bytes sent.
    pub tx_bytes: u64,
}

/// Totals per IP address, filled one packet at a time.
#[derive(Clone, Debug)]
pub struct AddressTotals {
    index: HashMap<IpAddr, usize>,
    entries: Vec<(IpAddr, Totals)>,
    /// The last two addresses looked up: consecutive packets mostly belong to one flow.
    recent: [(IpAddr, usize); 2],
    /// The most addresses kept.
    cap: usize,
    /// Bytes subtracted from every kept count by pruning (see [`AddressTotals::undercount`]).
    undercount: u64,
    /// Addresses dropped by pruning.
    dropped: u64,
}

impl AddressTotals {
    /// No addresses yet; as many kept as the capture has.
    pub fn new() -> AddressTotals {
        AddressTotals::with_cap(usize::MAX)
    }

    /// No addresses yet; at most `cap` kept (at least 2). When a new address finds the table
    /// full, every count of bytes is lowered by the median and the addresses left with none
    /// are dropped (Misra–Gries with batch decrements): an address that carried more than
    /// [`AddressTotals::undercount`] bytes in all is always kept, and its count of bytes is
    /// short by at most that much. Memory stays bounded whatever the number of addresses.
    pub fn with_cap(cap: usize) -> AddressTotals {
        AddressTotals {
            index: HashMap::new(),
            entries: Vec::new(),
            recent: [(IpAddr::from([0u8; 4]), usize::MAX); 2],
            cap: cap.max(2),
            undercount: 0,
            dropped: 0,
        }
    }

    /// How many bytes each count may fall short of the truth, and the most bytes an address
    /// not kept can have carried: 0 while no address was dropped (every count exact).
    pub fn undercount(&self) -> u64 {
        self.undercount
    }

    /// Addresses dropped to keep the table within its cap (an address dropped, then seen
    /// again, counts each time).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Lowers every count of bytes by the median count and drops the addresses left with
    /// none (packets are left as counted since the address was last added).
    fn prune(&mut self) {
        let mut bytes: Vec<u64> = self.entries.iter().map(|e| e.1.bytes).collect();
        let mid = bytes.len() / 2;
        let (_, &mut m, _) = bytes.select_nth_unstable(mid);
        let before = self.entries.len();
        self.entries.retain(|e| e.1.bytes > m);
        if self.entries.len() == before {
            // Every count above the median: cannot happen (the median entry is at it), but
            // never loop without freeing room.
            self.entries.truncate(before / 2);
        }
        for (_, t) in &mut self.entries {
            t.bytes -= m.min(t.bytes);
            t.tx_bytes = t.tx_bytes.min(t.bytes);
        }
        self.dropped += (before - self.entries.len()) as u64;
        self.undercount += m;
        self.index.clear();
        for (i, (a, _)) in self.entries.iter().enumerate() {
            self.index.insert(*a, i);
        }
        self.recent = [(IpAddr::from([0u8; 4]), usize::MAX); 2];
    }
}

impl Default for AddressTotals {
    fn default() -> AddressTotals {
        AddressTotals::new()
    }
}

impl AddressTotals {
    /// Count `p` for its source and its destination.
    pub fn add(&mut self, p: &TracePacket) {
        let bytes = u64::from(p.ip_len);
        let s = self.slot(p.src);
        let t = &mut self.entries[s].1;
        t.packets += 1;
        t.bytes += bytes;
        t.tx_packets += 1;
        t.tx_bytes += bytes;
        if p.dst != p.src {
            let d = self.slot(p.dst);
            let t = &mut self.entries[d].1;
            t.packets += 1;
            t.bytes += bytes;
        }
    }

    fn slot(&mut self, addr: IpAddr) -> usize {
        for &(a, i) in &self.recent {
            if a == addr && i != usize::MAX {
                return i;
            }
        }
        let i = match self.index.get(&addr) {
            Some(&i) => i,
            None => {
                if self.entries.len() >= self.cap {
                    self.prune();
                }
                self.entries.push((addr, Totals::default()));
                self.index.insert(addr, self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        self.recent = [(addr, i), self.recent[0]];
        i
    }

    /// Totals of `addr`, if it was seen.
    pub fn get(&self, addr: IpAddr) -> Option<Totals> {
        self.index.get(&addr).map(|&i| self.entries[i].1)
    }

    /// Addresses seen.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No address seen (no IP packet).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every address with its totals, in order of first appearance.
    pub fn iter(&self) -> impl Iterator<Item = (IpAddr, Totals)> + '_ {
        self.entries.iter().copied()
    }

    /// The address with the most bytes (ties: most packets, then the smallest address), or
    /// `None` for a capture without IP packets. In a capture of one connection both ends tie;
    /// [`AddressTotals::ranked`] shows such ties.
    pub fn busiest(&self) -> Option<(IpAddr, Totals)> {
        self.entries.iter().copied().min_by(rank)
    }

    /// Every address, busiest first (the order of [`AddressTotals::busiest`]).
    pub fn ranked(&self) -> Vec<(IpAddr, Totals)> {
        let mut v = self.entries.clone();
        v.sort_by(rank);
        v
    }
}

/// Most bytes first, then most packets, then the smaller address.
fn rank((a, x): &(IpAddr, Totals), (b, y): &(IpAddr, Totals)) -> std::cmp::Ordering {
    (y.bytes, y.packets)
        .cmp(&(x.bytes, x.packets))
        .then_with(|| a.cmp(b))
}

/// Read the rest of `reader`'s packets into per-address totals.
pub fn address_totals<R: Read>(reader: &mut TraceReader<R>) -> Result<AddressTotals, TraceError> {
    address_totals_capped(reader, usize::MAX)
}

/// [`address_totals`] keeping at most `cap` addresses (see [`AddressTotals::with_cap`]).
pub fn address_totals_capped<R: Read>(reader: &mut TraceReader<R>, cap: usize) -> Result<AddressTotals, TraceError> {
    let mut totals = AddressTotals::with_cap(cap);
    while let Some(p) = reader.next_packet() {
        totals.add(&p?);
    }
    Ok(totals)
}

/// The address with the most traffic in `reader`'s remaining packets (see
/// [`AddressTotals::busiest`]), with its totals; `None` if there is no IP packet.
pub fn busiest_address<R: Read>(
    reader: &mut TraceReader<R>,
) -> Result<Option<(IpAddr, Totals)>, TraceError> {
    Ok(address_totals(reader)?.busiest())
}
