//! The client's connections, in bounded memory: at most `cap` are kept; when a new one comes
//! and the table is full, the least recently used is evicted, its counters folded into one
//! `other` row and its number reused (the caller folds its energy too, see
//! [`wattlab_core::energy::PolicyMeter::fold_owner`]). A capture of millions of short
//! connections then costs `cap` rows, not millions.

use std::net::{IpAddr, Ipv4Addr};

use lru::LruCache;
use serde::Serialize;

/// Connections kept by default; more are folded into the `other` row.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 100_000;

/// The most connections a table may keep (`--max-connections`).
pub const MAX_MAX_CONNECTIONS: u32 = 10_000_000;

/// Connection key: protocol, client port, peer, peer port.
pub type ConnKey = (u8, u16, IpAddr, u16);

/// One connection (or, for other protocols, one peer and protocol) of the client: a row of
/// the connections table (its fields are the table's columns, in order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Connection {
    /// 1-based id (0 is "before the first packet" in the attribution); the `other` row has
    /// the id after the last kept one.
    pub id: u32,
    /// IP protocol number (0 for the `other` row).
    pub protocol: u8,
    /// The client's port (0 if none).
    pub local_port: u16,
    /// The peer (for group-addressed traffic, the group address; `0.0.0.0` for `other`).
    pub remote: IpAddr,
    /// The peer's port (0 if none).
    pub remote_port: u16,
    /// Packets sent by the client.
    pub packets_up: u64,
    /// Packets received.
    pub packets_down: u64,
    /// IP bytes sent.
    pub bytes_up: u64,
    /// IP bytes received.
    pub bytes_down: u64,
    /// First packet, ns since the epoch.
    pub first_ns: u64,
    /// Last packet, ns since the epoch.
    pub last_ns: u64,
    /// Connections the row stands for: 1, or for the `other` row the connections evicted
    /// into it (a connection evicted, then seen again, counts each time).
    pub connections: u64,
}

impl Default for Connection {
    /// An empty row (no id, no peer: the unspecified address), the schema of an empty table.
    fn default() -> Self {
        Connection {
            id: 0,
            protocol: 0,
            local_port: 0,
            remote: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            remote_port: 0,
            packets_up: 0,
            packets_down: 0,
            bytes_up: 0,
            bytes_down: 0,
            first_ns: 0,
            last_ns: 0,
            connections: 0,
        }
    }
}

impl Connection {
    fn new(id: u32, key: ConnKey, ts_ns: u64) -> Connection {
        Connection {
            id,
            protocol: key.0,
            local_port: key.1,
            remote: key.2,
            remote_port: key.3,
            first_ns: ts_ns,
            last_ns: ts_ns,
            connections: 1,
            ..Connection::default()
        }
    }

    /// Counts one packet of `bytes` at `ts_ns`, sent (`up`) or received.
    pub fn count(&mut self, up: bool, bytes: u64, ts_ns: u64) {
        self.last_ns = self.last_ns.max(ts_ns);
        self.first_ns = self.first_ns.min(ts_ns);
        if up {
            self.packets_up += 1;
            self.bytes_up += bytes;
        } else {
            self.packets_down += 1;
            self.bytes_down += bytes;
        }
    }

    fn absorb(&mut self, c: &Connection) {
        if self.connections == 0 {
            self.first_ns = c.first_ns;
        }
        self.first_ns = self.first_ns.min(c.first_ns);
        self.last_ns = self.last_ns.max(c.last_ns);
        self.packets_up += c.packets_up;
        self.packets_down += c.packets_down;
        self.bytes_up += c.bytes_up;
        self.bytes_down += c.bytes_down;
        self.connections += c.connections;
    }
}

/// The connections table (see the module docs).
#[derive(Debug)]
pub struct ConnTable {
    cap: u32,
    lru: LruCache<ConnKey, u32>,
    /// Rows by id − 1.
    rows: Vec<Connection>,
    /// The last key looked up: consecutive packets mostly belong to one connection.
    last: Option<(ConnKey, u32)>,
    other: Connection,
}

impl ConnTable {
    /// A table keeping at most `cap` connections (1 to [`MAX_MAX_CONNECTIONS`]).
    pub fn new(cap: u32) -> ConnTable {
        let cap = cap.clamp(1, MAX_MAX_CONNECTIONS);
        ConnTable {
            cap,
            lru: LruCache::unbounded(),
            rows: Vec::new(),
            last: None,
            other: Connection { id: cap + 1, ..Connection::default() },
        }
    }

    /// The owner id of the `other` row (the meters charge evicted connections' energy there).
    pub fn other_id(&self) -> u32 {
        self.cap + 1
    }

    /// The id of `key`'s connection, seen at `ts_ns`, creating it if new. The second value is
    /// `true` when the id was taken from an evicted connection, whose counters are now in the
    /// `other` row: the caller must fold that id's energy into [`ConnTable::other_id`] before
    /// charging the new connection.
    pub fn slot(&mut self, key: ConnKey, ts_ns: u64) -> (u32, bool) {
        if let Some((k, id)) = self.last {
            if k == key {
                return (id, false);
            }
        }
        let (id, reused) = if let Some(&id) = self.lru.get(&key) {
            (id, false)
        } else if self.rows.len() < self.cap as usize {
            let id = self.rows.len() as u32 + 1;
            self.lru.push(key, id);
            self.rows.push(Connection::new(id, key, ts_ns));
            (id, false)
        } else {
            let (_, id) = self.lru.pop_lru().expect("a full table has a least recently used entry");
            self.lru.push(key, id);
            let row = &mut self.rows[id as usize - 1];
            self.other.absorb(row);
            *row = Connection::new(id, key, ts_ns);
            (id, true)
        };
        self.last = Some((key, id));
        (id, reused)
    }

    /// The row of connection `id`.
    pub fn row_mut(&mut self, id: u32) -> &mut Connection {
        &mut self.rows[id as usize - 1]
    }

    /// Connections evicted into the `other` row.
    pub fn evicted(&self) -> u64 {
        self.other.connections
    }

    /// The most connections kept.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// The rows, by id, with the `other` row last if any connection was evicted.
    pub fn into_rows(self) -> Vec<Connection> {
        let mut rows = self.rows;
        if self.other.connections > 0 {
            rows.push(self.other);
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(port: u16) -> ConnKey {
        (6, port, IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 80)
    }

    #[test]
    fn the_least_recently_used_connection_is_folded_into_other_and_its_id_reused() {
        let mut t = ConnTable::new(2);
        assert_eq!(t.slot(key(1), 10), (1, false));
        t.row_mut(1).count(true, 100, 10);
        assert_eq!(t.slot(key(2), 20), (2, false));
        t.row_mut(2).count(false, 200, 20);
        // Connection 1 used again: 2 is now the least recently used.
        assert_eq!(t.slot(key(1), 30), (1, false));
        t.row_mut(1).count(false, 50, 30);
        assert_eq!(t.slot(key(3), 40), (2, true));
        t.row_mut(2).count(true, 7, 40);
        assert_eq!(t.evicted(), 1);
        // Connection 2 again: evicts 1 (least recent), gets id 1.
        assert_eq!(t.slot(key(2), 50), (1, true));
        let rows = t.into_rows();
        assert_eq!(rows.len(), 3);
        let other = &rows[2];
        assert_eq!((other.id, other.connections, other.packets_up, other.packets_down), (3, 2, 1, 2));
        assert_eq!((other.bytes_up, other.bytes_down, other.first_ns, other.last_ns), (100, 250, 10, 30));
        assert_eq!((rows[0].local_port, rows[0].connections, rows[0].packets_down), (2, 1, 0));
        assert_eq!((rows[1].local_port, rows[1].bytes_up), (3, 7));
    }
}
