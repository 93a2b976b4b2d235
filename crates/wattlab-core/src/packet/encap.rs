//! Encapsulated packets: a tunnel's inner packet lives in a [`PacketArena`] and the outer
//! packet carries an [`EncapId`], a 8-byte handle.
//!
//! Why a handle and not a `Box<Packet>`: a [`Packet`] is `Copy` and moves through queues,
//! pipes and captures by value; a box would make every packet non-`Copy` (a clone, a drop
//! check and a branch everywhere) to serve one rare path, and allocate per tunnelled packet.
//! Why a ring: a tunnelled packet can be lost anywhere (a full queue, a lossy channel, a
//! dozing station), and nothing tells the tunnel; slots that must be freed would leak with
//! every loss. The arena instead reuses its oldest slot once it holds `capacity` packets, and
//! every slot has a generation, so a handle to an overwritten slot is detected (its packet is
//! gone) instead of reading another packet. The capacity must exceed the tunnelled packets in
//! flight at once; its memory grows with use up to `capacity × 88` bytes.

use super::Packet;
use std::num::NonZeroU32;

/// Default number of slots of a [`PacketArena`]: 65,536 packets in flight, at most 5.8 MB.
pub const DEFAULT_ARENA_SLOTS: u32 = 1 << 16;

/// A handle to a packet in a [`PacketArena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EncapId {
    slot: u32,
    generation: NonZeroU32,
}

/// Where the packets that tunnels encapsulate are kept (see the module docs).
#[derive(Clone, Debug)]
pub struct PacketArena {
    slots: Vec<(NonZeroU32, Packet)>,
    next: u32,
    capacity: u32,
}

impl Default for PacketArena {
    fn default() -> Self {
        PacketArena::new()
    }
}

impl PacketArena {
    /// An empty arena of [`DEFAULT_ARENA_SLOTS`] slots (nothing is allocated until used).
    pub const fn new() -> PacketArena {
        PacketArena::with_slots(DEFAULT_ARENA_SLOTS)
    }

    /// An empty arena that reuses its oldest slot once it holds `slots` packets (at least 1).
    pub const fn with_slots(slots: u32) -> PacketArena {
        PacketArena { slots: Vec::new(), next: 0, capacity: if slots == 0 { 1 } else { slots } }
    }

    /// Stores `p` and returns its handle; overwrites the oldest packet when the arena is full.
    pub fn insert(&mut self, p: Packet) -> EncapId {
        let slot = self.next;
        self.next = if slot + 1 >= self.capacity { 0 } else { slot + 1 };
        let generation = match self.slots.get_mut(slot as usize) {
            Some(entry) => {
                // Skip 0 on wrap-around; a handle 2^32 - 1 reuses old would be mistaken for new.
                let g = NonZeroU32::new(entry.0.get().wrapping_add(1)).unwrap_or(NonZeroU32::MIN);
                *entry = (g, p);
                g
            }
            None => {
                self.slots.push((NonZeroU32::MIN, p));
                NonZeroU32::MIN
            }
        };
        EncapId { slot, generation }
    }

    /// The packet of `id`; `None` if its slot has been reused since (or never existed here).
    pub fn get(&self, id: EncapId) -> Option<&Packet> {
        match self.slots.get(id.slot as usize) {
            Some((g, p)) if *g == id.generation => Some(p),
            _ => None,
        }
    }

    /// Packets stored (at most the capacity).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True if nothing was ever stored.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::UdpHeader;
    use std::net::Ipv4Addr;

    fn p(n: u32) -> Packet {
        Packet::udp(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), UdpHeader::default(), n)
    }

    #[test]
    fn handles_find_their_packet_until_the_slot_is_reused() {
        let mut a = PacketArena::with_slots(2);
        let (x, y) = (a.insert(p(1)), a.insert(p(2)));
        assert_eq!((a.get(x), a.get(y)), (Some(&p(1)), Some(&p(2))));
        let z = a.insert(p(3)); // reuses x's slot
        assert_eq!((a.get(x), a.get(z), a.len()), (None, Some(&p(3)), 2));
        assert_eq!(a.get(y), Some(&p(2)));
        // A handle from another, larger arena is not found rather than misread.
        let mut big = PacketArena::new();
        for n in 0..5 {
            big.insert(p(n));
        }
        let far = big.insert(p(9));
        assert_eq!(a.get(far), None);
        assert_eq!(PacketArena::with_slots(0).insert(p(1)), EncapId { slot: 0, generation: NonZeroU32::MIN });
    }
}
