//! Streaming reader for pcap and pcapng files.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use pcap_file::pcap::PcapHeader;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgParser};
use pcap_file::{Endianness, TsResolution};

use crate::error::{Location, TraceError};
use crate::packet::{decode_frame, decode_msdu, link_type_name, FrameMeta, LinkType, SkipReason, Transport};
use crate::wlan::phy_header::WlanHeader;
use crate::wlan::{self, Payload, Problem, WlanFrame};
use crate::TracePacket;

/// Largest record or block accepted (bytes). libpcap caps records at 256 KiB; anything far
/// beyond that is a corrupt length field, reported instead of buffered.
pub const MAX_RECORD_LEN: usize = 16 << 20;

/// Initial size of the read buffer; it grows only to hold a larger record.
const BUF_LEN: usize = 256 << 10;

const MAGIC_PCAP_US: u32 = 0xa1b2_c3d4;
const MAGIC_PCAP_NS: u32 = 0xa1b2_3c4d;
const PCAPNG_SHB: u32 = 0x0a0d_0d0a;
const PCAPNG_IDB: u32 = 1;
const PCAPNG_PB: u32 = 2;
const PCAPNG_SPB: u32 = 3;
const PCAPNG_EPB: u32 = 6;

/// The container format of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    /// Classic libpcap; `nanos` for the nanosecond variant (magic `a1b23c4d`).
    Pcap {
        /// Nanosecond timestamps (else microseconds).
        nanos: bool,
        /// The file's link type.
        link: LinkType,
    },
    /// pcapng: link type and timestamp resolution per interface.
    PcapNg,
}

/// Per-reason counts of skipped packet records: packets and original (wire) bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skips {
    packets: [u64; SkipReason::ALL.len()],
    bytes: [u64; SkipReason::ALL.len()],
}

impl Skips {
    /// Packets skipped for `reason`.
    pub fn packets(&self, reason: SkipReason) -> u64 {
        self.packets[reason.idx()]
    }

    /// Original (wire) bytes of the packets skipped for `reason`.
    pub fn bytes(&self, reason: SkipReason) -> u64 {
        self.bytes[reason.idx()]
    }

    /// Packets skipped for any reason.
    pub fn total_packets(&self) -> u64 {
        self.packets.iter().sum()
    }

    fn add(&mut self, reason: SkipReason, bytes: u32) {
        self.packets[reason.idx()] += 1;
        self.bytes[reason.idx()] += u64::from(bytes);
    }
}

/// What the reader has seen so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Packet records read (yielded + skipped).
    pub records: u64,
    /// IP packets yielded.
    pub packets: u64,
    /// Of those, IP fragments ([`Transport::Fragment`]).
    pub fragments: u64,
    /// Of those, TCP/UDP with a cut or malformed header ([`Transport::Undecoded`]).
    pub undecoded: u64,
    /// Records skipped, by reason.
    pub skipped: Skips,
    /// IP packets whose length field claimed more than their frame carries (costed at what
    /// the frame carries).
    pub length_capped: LengthCapped,
    /// 802.11 frames decoded (802.11 link types only).
    pub wlan: WlanCounts,
}

/// 802.11 frames decoded, by type (frames skipped for a bad FCS or a cut header are in
/// [`Stats::skipped`] instead).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WlanCounts {
    /// Management frames.
    pub management: u64,
    /// Control frames.
    pub control: u64,
    /// Data frames (null frames included).
    pub data: u64,
    /// Extension frames (type 3).
    pub extension: u64,
    /// Frames with the Retry bit.
    pub retries: u64,
    /// A-MSDU subframes seen by [`TraceReader::next_frame`] (each an MSDU of its own).
    pub amsdu_subframes: u64,
}

impl WlanCounts {
    fn add(&mut self, mac: &wlan::MacHeader) {
        match mac.frame_type() {
            0 => self.management += 1,
            1 => self.control += 1,
            2 => self.data += 1,
            _ => self.extension += 1,
        }
        self.retries += u64::from(mac.retry());
    }

    /// Every 802.11 frame decoded.
    pub fn frames(&self) -> u64 {
        self.management + self.control + self.data + self.extension
    }
}

/// IP packets whose IPv4 total length or IPv6 payload length claims more bytes than the frame
/// carries (its original length less the link header): their length is capped to the frame.
/// A 65535-byte total length on a 1514-byte Ethernet frame would otherwise be costed as 44
/// frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LengthCapped {
    /// Packets capped.
    pub packets: u64,
    /// Bytes their length fields claimed beyond what their frames carry.
    pub excess_bytes: u64,
    /// The first such packet: its index and byte offset.
    pub first: Option<(u64, u64)>,
}

impl LengthCapped {
    fn add(&mut self, index: u64, offset: u64, claimed: u32, carried: u32) {
        self.packets += 1;
        self.excess_bytes += u64::from(claimed.saturating_sub(carried));
        self.first.get_or_insert((index, offset));
    }
}

/// One packet record: a decoded IP packet, or a record skipped (not IP, cut, malformed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// An IP packet.
    Ip(TracePacket),
    /// A record that is not an IP packet the reader can decode.
    Skipped(SkippedFrame),
}

/// What is known of a skipped record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkippedFrame {
    /// 0-based record index.
    pub index: u64,
    /// Byte offset of its record or block.
    pub offset: u64,
    /// Capture time, ns since the epoch.
    pub ts_ns: u64,
    /// Original (wire) length.
    pub orig_len: u32,
    /// Why it was skipped.
    pub reason: SkipReason,
}

/// A pcapng timestamp unit, from `if_tsresol`.
#[derive(Clone, Copy, Debug)]
enum TsUnit {
    /// ns = raw × k (resolution 10^-n, n ≤ 9).
    Mul(u64),
    /// ns = raw / k (resolution 10^-n, 9 < n ≤ 19).
    Div(u64),
    /// ns = raw × 10^9 / 2^n.
    Pow2(u32),
}

impl TsUnit {
    fn from_tsresol(r: u8) -> Option<TsUnit> {
        let n = u32::from(r & 0x7f);
        if r & 0x80 != 0 {
            (n <= 63).then_some(TsUnit::Pow2(n))
        } else if n <= 9 {
            Some(TsUnit::Mul(10u64.pow(9 - n)))
        } else if n <= 19 {
            Some(TsUnit::Div(10u64.pow(n - 9)))
        } else {
            None
        }
    }

    fn to_ns(self, raw: u64) -> Option<u64> {
        match self {
            TsUnit::Mul(k) => raw.checked_mul(k),
            TsUnit::Div(k) => Some(raw / k),
            TsUnit::Pow2(n) => u64::try_from((u128::from(raw) * 1_000_000_000) >> n).ok(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Interface {
    /// Link type, or its unsupported number.
    link: Result<LinkType, u32>,
    unit: TsUnit,
    /// `if_tsoffset`, seconds (signed, per the pcapng spec).
    offset_s: i64,
}

enum Format {
    Pcap {
        big: bool,
        nanos: bool,
        link: LinkType,
    },
    /// `parser` parses section headers and interface descriptions (options included);
    /// packet blocks are framed here, without pcap-file's per-block option vectors.
    PcapNg {
        big: bool,
        parser: PcapNgParser,
        interfaces: Vec<Interface>,
    },
    /// Before the first section header block.
    Start,
}

/// The read buffer: bytes `start..end` of `buf` are the file from `offset` on.
struct Input<R> {
    src: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    offset: u64,
    eof: bool,
}

impl<R: Read> Input<R> {
    fn avail(&self) -> usize {
        self.end - self.start
    }

    /// Read until `need` bytes are buffered or the file ends.
    fn fill(&mut self, need: usize) -> io::Result<()> {
        while self.avail() < need && !self.eof {
            if self.end == self.buf.len() {
                if self.start > 0 {
                    self.buf.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                } else {
                    // Grow geometrically, so a corrupt length in a short file costs little.
                    let len = (self.buf.len() * 2).min(need).max(self.buf.len() + 1);
                    self.buf.resize(len, 0);
                }
            }
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn bytes(&self, n: usize) -> &[u8] {
        &self.buf[self.start..self.start + n]
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        self.offset += n as u64;
    }

    fn u32_at(&self, at: usize, big: bool) -> u32 {
        let b = &self.buf[self.start + at..self.start + at + 4];
        let b = [b[0], b[1], b[2], b[3]];
        if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }
}

/// One framed packet record: where its frame bytes are in the buffer and what is known of it.
#[derive(Clone, Copy)]
struct Record {
    meta: FrameMeta,
    link: LinkType,
    /// Frame bytes: `data_at..data_at + data_len` from the record's start.
    data_at: usize,
    data_len: usize,
    /// Whole record length, consumed after decoding.
    len: usize,
}

/// Streams the packets of a pcap or pcapng capture, one record at a time, decoding each to a
/// [`TracePacket`] without allocating; non-IP and undecodable frames are counted in
/// [`TraceReader::stats`].
pub struct TraceReader<R: Read> {
    input: Input<R>,
    origin: String,
    format: Format,
    next_index: u64,
    /// Timestamp of the previous packet (pcapng simple packet blocks have none).
    last_ts: u64,
    done: bool,
    stats: Stats,
    /// Bytes of a record still in use (a borrowed [`WlanFrame`], or an A-MSDU being
    /// yielded), consumed before the next record is framed.
    pending: usize,
    /// The A-MSDU whose IP subframes [`TraceReader::next_frame`] is yielding.
    amsdu: Option<AmsduCursor>,
}

/// An A-MSDU being yielded one subframe at a time; its record stays in the buffer.
#[derive(Clone, Copy)]
struct AmsduCursor {
    rec: Record,
    /// The 802.11 frame is `data[start..end]` of the record's data.
    start: usize,
    end: usize,
    /// The next subframe's offset in the frame.
    next: usize,
    /// IP packets yielded from it so far.
    yielded: u32,
    /// The wire bytes of the subframe last read (header, MSDU, padding).
    span: u32,
}

/// What one 802.11 record gives [`TraceReader::next_frame`].
enum WlanIp {
    Packet(TracePacket),
    Amsdu(AmsduCursor),
    Skip(SkipReason),
    Corrupt(usize, &'static str),
}

impl TraceReader<File> {
    /// Open the capture at `path` (pcap or pcapng, detected by its magic number).
    pub fn open(path: impl AsRef<Path>) -> Result<TraceReader<File>, TraceError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let file = File::open(path).map_err(|source| TraceError::Io {
            at: Location {
                file: origin.clone(),
                packet: None,
                offset: 0,
            },
            source,
        })?;
        TraceReader::new(file, origin)
    }
}

impl<R: Read> TraceReader<R> {
    /// Read a capture from `reader`; `origin` names it in errors. Reads the file header (and
    /// for pcapng the first section header block) before returning.
    pub fn new(reader: R, origin: impl Into<String>) -> Result<TraceReader<R>, TraceError> {
        let mut r = TraceReader {
            input: Input {
                src: reader,
                buf: vec![0; BUF_LEN],
                start: 0,
                end: 0,
                offset: 0,
                eof: false,
            },
            origin: origin.into(),
            format: Format::Start,
            next_index: 0,
            last_ts: 0,
            done: false,
            stats: Stats::default(),
            pending: 0,
            amsdu: None,
        };
        r.read_file_header()?;
        Ok(r)
    }

    /// The container format (and for pcap, the link type).
    pub fn format(&self) -> CaptureFormat {
        match self.format {
            Format::Pcap { nanos, link, .. } => CaptureFormat::Pcap { nanos, link },
            Format::PcapNg { .. } | Format::Start => CaptureFormat::PcapNg,
        }
    }

    /// The capture's name as used in errors.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Bytes held by the read buffer: fixed (256 KiB) unless a record is larger.
    pub fn buffer_capacity(&self) -> usize {
        self.input.buf.len()
    }

    /// Counts of records read, packets yielded and records skipped so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The next IP packet; `None` at the end of the capture or after an error.
    pub fn next_packet(&mut self) -> Option<Result<TracePacket, TraceError>> {
        loop {
            match self.next_frame()? {
                Ok(Frame::Ip(p)) => return Some(Ok(p)),
                Ok(Frame::Skipped(_)) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// The next packet record, an IP packet or a skipped one (with its time and wire length:
    /// EnergyBox's timeline counts every frame); `None` at the end of the capture or after an
    /// error.
    pub fn next_frame(&mut self) -> Option<Result<Frame, TraceError>> {
        if let Some(cursor) = self.amsdu {
            if let Some(f) = self.next_subframe(cursor) {
                return Some(Ok(f));
            }
        }
        let rec = match self.next_live_record()? {
            Ok(rec) => rec,
            Err(e) => return Some(Err(e)),
        };
        if let Some(kind) = rec.link.wlan_header() {
            return self.wlan_ip(rec, kind);
        }
        let data = &self.input.bytes(rec.len)[rec.data_at..rec.data_at + rec.data_len];
        let decoded = decode_frame(rec.link, data, rec.meta);
        self.input.consume(rec.len);
        self.stats.records += 1;
        Some(Ok(self.count(decoded, rec.meta)))
    }

    /// Count a decoded packet or skipped record in the stats and wrap it as a [`Frame`].
    fn count(&mut self, decoded: Result<TracePacket, SkipReason>, meta: FrameMeta) -> Frame {
        match decoded {
            Ok(p) => {
                self.stats.packets += 1;
                match p.transport {
                    Transport::Fragment => self.stats.fragments += 1,
                    Transport::Undecoded => self.stats.undecoded += 1,
                    _ => {}
                }
                if let Some(claimed) = p.ip_len_claimed {
                    self.stats.length_capped.add(p.index, p.offset, claimed, p.ip_len);
                }
                Frame::Ip(p)
            }
            Err(reason) => {
                self.stats.skipped.add(reason, meta.orig_len);
                Frame::Skipped(SkippedFrame {
                    index: meta.index,
                    offset: meta.offset,
                    ts_ns: meta.ts_ns,
                    orig_len: meta.orig_len,
                    reason,
                })
            }
        }
    }

    /// The IP packet (or the first of an A-MSDU's) an 802.11 record carries, or its skip.
    fn wlan_ip(&mut self, rec: Record, kind: WlanHeader) -> Option<Result<Frame, TraceError>> {
        let data = &self.input.bytes(rec.len)[rec.data_at..rec.data_at + rec.data_len];
        let outcome = match wlan::parse_record(kind, data, rec.meta.orig_len) {
            Err(Problem::Skip(r)) => WlanIp::Skip(r),
            Err(Problem::Corrupt { at, what }) => WlanIp::Corrupt(at, what),
            Ok(p) => {
                self.stats.wlan.add(&p.mac);
                let frame = &data[p.start..p.end];
                match wlan::payload(&p.mac, frame, p.body_at) {
                    Payload::Msdu { ether_type, at } => {
                        match decode_msdu(ether_type, &data[..p.end], p.start + at, rec.meta) {
                            Ok(packet) => WlanIp::Packet(packet),
                            Err(r) => WlanIp::Skip(r),
                        }
                    }
                    Payload::Amsdu { at } => WlanIp::Amsdu(AmsduCursor {
                        rec,
                        start: p.start,
                        end: p.end,
                        next: at,
                        yielded: 0,
                        span: 0,
                    }),
                    Payload::Protected => WlanIp::Skip(SkipReason::Protected),
                    Payload::None | Payload::Unknown => WlanIp::Skip(SkipReason::NotIp),
                }
            }
        };
        self.stats.records += 1;
        match outcome {
            WlanIp::Amsdu(cursor) => {
                // The record stays in the buffer until its last subframe is yielded.
                self.pending = rec.len;
                let f = self.next_subframe(cursor).expect("an A-MSDU yields a frame");
                Some(Ok(f))
            }
            WlanIp::Corrupt(at, what) => {
                self.done = true;
                let file_at = rec.meta.offset + (rec.data_at + at) as u64;
                let detail = format!("{what} (byte {at} of the header, file offset {file_at})");
                Some(Err(self.corrupt(Some(rec.meta.index), kind.name(), detail)))
            }
            WlanIp::Packet(p) => {
                self.input.consume(rec.len);
                Some(Ok(self.count(Ok(p), rec.meta)))
            }
            WlanIp::Skip(r) => {
                self.input.consume(rec.len);
                Some(Ok(self.count(Err(r), rec.meta)))
            }
        }
    }

    /// The next IP packet of an A-MSDU, or (when it carries none) the record as skipped;
    /// `None` when the A-MSDU is done (its record is then consumed).
    fn next_subframe(&mut self, mut c: AmsduCursor) -> Option<Frame> {
        let rec = c.rec;
        let data = &self.input.bytes(rec.len)[rec.data_at..rec.data_at + rec.data_len];
        let frame = &data[..c.end];
        let mut found = None;
        while let Some(sf) = wlan::subframe(&frame[c.start..], c.next) {
            c.span = (sf.next.min(c.end - c.start) - c.next) as u32;
            c.next = sf.next;
            self.stats.wlan.amsdu_subframes += 1;
            if let Some(et) = sf.ether_type {
                if let Ok(p) = decode_msdu(et, &frame[..c.start + sf.end], c.start + sf.at, rec.meta) {
                    found = Some(p);
                    break;
                }
            }
        }
        match found {
            Some(mut p) => {
                // The subframes share their record's wire length, so that they sum to it: a
                // later one carries its own span, the first the rest (the record's headers).
                let span = |sf: wlan::Subframe, at: usize| (sf.next.min(c.end - c.start) - at) as u32;
                let later_at = c.next;
                if c.yielded == 0 {
                    let (mut at, mut later) = (later_at, 0u32);
                    while let Some(sf) = wlan::subframe(&frame[c.start..], at) {
                        if matches!(sf.ether_type, Some(0x0800 | 0x86dd)) {
                            later += span(sf, at);
                        }
                        at = sf.next;
                    }
                    p.orig_len = p.orig_len.saturating_sub(later);
                } else {
                    p.orig_len = c.span;
                }
                c.yielded += 1;
                self.amsdu = Some(c);
                Some(self.count(Ok(p), rec.meta))
            }
            None => {
                self.amsdu = None;
                self.input.consume(std::mem::take(&mut self.pending));
                // Every record is accounted for: one without any IP subframe is a skip.
                (c.yielded == 0).then(|| self.count(Err(SkipReason::NotIp), rec.meta))
            }
        }
    }

    /// The next 802.11 frame of an 802.11 capture (radiotap, PPI, AVS or plain 802.11),
    /// borrowed from the reader's buffer until the next call; `None` at the end or after an
    /// error. Frames with a bad FCS or a cut or malformed MAC header, and records of other
    /// link types, are skipped and counted in [`TraceReader::stats`]; a corrupt capture
    /// header is an error naming its byte offset. Use either this or
    /// [`TraceReader::next_frame`] on one reader, not both.
    pub fn next_wlan(&mut self) -> Option<Result<WlanFrame<'_>, TraceError>> {
        let (rec, parsed) = loop {
            let rec = match self.next_live_record()? {
                Ok(rec) => rec,
                Err(e) => return Some(Err(e)),
            };
            self.stats.records += 1;
            let Some(kind) = rec.link.wlan_header() else {
                self.stats.skipped.add(SkipReason::NotWlan, rec.meta.orig_len);
                self.input.consume(rec.len);
                continue;
            };
            let data = &self.input.bytes(rec.len)[rec.data_at..rec.data_at + rec.data_len];
            match wlan::parse_record(kind, data, rec.meta.orig_len) {
                Ok(p) => break (rec, p),
                Err(Problem::Skip(r)) => {
                    self.stats.skipped.add(r, rec.meta.orig_len);
                    self.input.consume(rec.len);
                }
                Err(Problem::Corrupt { at, what }) => {
                    self.done = true;
                    let file_at = rec.meta.offset + (rec.data_at + at) as u64;
                    let detail = format!("{what} (byte {at} of the header, file offset {file_at})");
                    return Some(Err(self.corrupt(Some(rec.meta.index), kind.name(), detail)));
                }
            }
        };
        self.stats.wlan.add(&parsed.mac);
        self.pending = rec.len;
        let data = &self.input.bytes(rec.len)[rec.data_at..rec.data_at + rec.data_len];
        Some(Ok(WlanFrame {
            index: rec.meta.index,
            offset: rec.meta.offset,
            ts_ns: rec.meta.ts_ns,
            interface: rec.meta.interface,
            phy: parsed.phy,
            mac: parsed.mac,
            mpdu_len: parsed.mpdu_len,
            bytes: &data[parsed.start..parsed.end],
            body_at: parsed.body_at,
        }))
    }

    /// Calls `f` with each record of a classic pcap capture as the file holds it (its 16-byte
    /// header and its data, undecoded) and its timestamp (ns since the epoch), in file order;
    /// returns how many records were read. A pcapng capture is refused. The capture trimmer
    /// ([`crate::trim`]) copies records this way, framed and checked as every reader frames them.
    pub(crate) fn for_each_pcap_record(&mut self, mut f: impl FnMut(u64, &[u8]) -> Result<(), TraceError>) -> Result<u64, TraceError> {
        let Format::Pcap { big, nanos, link } = self.format else {
            return Err(self.corrupt(None, "capture format", "a pcapng file: only classic pcap records (tcpdump -w) can be copied".into()));
        };
        let mut records = 0;
        while let Some(rec) = self.pcap_record(big, nanos, link)? {
            f(rec.meta.ts_ns, self.input.bytes(rec.len))?;
            self.input.consume(rec.len);
            records += 1;
        }
        Ok(records)
    }

    fn at(&self, packet: Option<u64>) -> Location {
        Location {
            file: self.origin.clone(),
            packet,
            offset: self.input.offset,
        }
    }

    fn fill(&mut self, need: usize) -> Result<usize, TraceError> {
        self.input.fill(need).map_err(|source| TraceError::Io {
            at: self.at(None),
            source,
        })?;
        Ok(self.input.avail())
    }

    fn truncated(&self, packet: Option<u64>, what: &'static str, need: usize) -> TraceError {
        TraceError::Truncated {
            at: self.at(packet),
            what,
            need: need as u64,
            have: self.input.avail() as u64,
        }
    }

    fn corrupt(&self, packet: Option<u64>, what: &'static str, detail: String) -> TraceError {
        TraceError::Corrupt {
            at: self.at(packet),
            what,
            detail,
        }
    }

    fn read_file_header(&mut self) -> Result<(), TraceError> {
        if self.fill(4)? < 4 {
            return Err(self.truncated(None, "capture file header", 4));
        }
        let magic = self.input.u32_at(0, true);
        if magic == PCAPNG_SHB {
            // The first block is a section header (its type is the magic number); read it
            // now so that its errors show at open.
            return match self.pcapng_block(true)? {
                Block2::Other => Ok(()),
                Block2::End | Block2::Packet(_) => {
                    Err(self.corrupt(None, "pcapng file", "no section header block".into()))
                }
            };
        }
        let known = [MAGIC_PCAP_US, MAGIC_PCAP_NS];
        if !known.contains(&magic) && !known.contains(&magic.swap_bytes()) {
            return Err(TraceError::BadMagic {
                at: self.at(None),
                magic,
            });
        }
        if self.fill(24)? < 24 {
            return Err(self.truncated(None, "pcap file header", 24));
        }
        let header = PcapHeader::from_slice(self.input.bytes(24))
            .map_err(|e| self.corrupt(None, "pcap file header", e.to_string()))?
            .1;
        // The top 4 bits may carry the FCS length (LT_FCS_LENGTH); they are not the type.
        let number = u32::from(header.datalink) & 0x0fff_ffff;
        let link = LinkType::from_number(number).ok_or_else(|| TraceError::UnknownLinkType {
            at: self.at(None),
            name: link_type_name(number),
            number,
        })?;
        self.format = Format::Pcap {
            big: header.endianness == Endianness::Big,
            nanos: header.ts_resolution == TsResolution::NanoSecond,
            link,
        };
        self.input.consume(24);
        Ok(())
    }

    /// Frame the next packet record, handling non-packet blocks on the way.
    /// The next record unless the reader is done; the end of the capture or an error makes
    /// it done, so both frame iterators stop there.
    fn next_live_record(&mut self) -> Option<Result<Record, TraceError>> {
        if self.done {
            return None;
        }
        let next = self.next_record().transpose();
        if !matches!(next, Some(Ok(_))) {
            self.done = true;
        }
        next
    }

    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        self.input.consume(std::mem::take(&mut self.pending));
        loop {
            let rec = match self.format {
                Format::Pcap { big, nanos, link } => return self.pcap_record(big, nanos, link),
                Format::PcapNg { big, .. } => self.pcapng_block(big)?,
                Format::Start => self.pcapng_block(true)?,
            };
            match rec {
                Block2::End => return Ok(None),
                Block2::Packet(r) => return Ok(Some(r)),
                Block2::Other => {}
            }
        }
    }

    fn pcap_record(
        &mut self,
        big: bool,
        nanos: bool,
        link: LinkType,
    ) -> Result<Option<Record>, TraceError> {
        let index = self.next_index;
        match self.fill(16)? {
            0 => return Ok(None),
            1..=15 => return Err(self.truncated(Some(index), "packet record header", 16)),
            _ => {}
        }
        let ts_sec = self.input.u32_at(0, big);
        let ts_frac = self.input.u32_at(4, big);
        let incl_len = self.input.u32_at(8, big) as usize;
        let orig_len = self.input.u32_at(12, big);
        if incl_len > MAX_RECORD_LEN {
            let detail = format!("captured length {incl_len} exceeds {MAX_RECORD_LEN} bytes");
            return Err(self.corrupt(Some(index), "packet record", detail));
        }
        let len = 16 + incl_len;
        if self.fill(len)? < len {
            return Err(self.truncated(Some(index), "packet record", len));
        }
        let (frac_ns, odd_fraction) = if nanos {
            (u64::from(ts_frac), ts_frac >= 1_000_000_000)
        } else {
            (u64::from(ts_frac) * 1000, ts_frac >= 1_000_000)
        };
        // At most (2^32 - 1) × 10^9 + (2^32 - 1) × 10^3 < 2^64: cannot overflow.
        let ts_ns = u64::from(ts_sec) * 1_000_000_000 + frac_ns;
        self.next_index += 1;
        Ok(Some(Record {
            meta: FrameMeta {
                index,
                offset: self.input.offset,
                ts_ns,
                odd_fraction,
                interface: 0,
                orig_len,
            },
            link,
            data_at: 16,
            data_len: incl_len,
            len,
        }))
    }

    fn pcapng_block(&mut self, big: bool) -> Result<Block2, TraceError> {
        let index = self.next_index;
        match self.fill(8)? {
            0 => return Ok(Block2::End),
            1..=7 => return Err(self.truncated(None, "pcapng block header", 8)),
            _ => {}
        }
        let kind = self.input.u32_at(0, big);
        let is_packet = matches!(kind, PCAPNG_EPB | PCAPNG_PB | PCAPNG_SPB);
        let packet = is_packet.then_some(index);
        let mut big = big;
        if kind == PCAPNG_SHB {
            if self.fill(12)? < 12 {
                return Err(self.truncated(None, "pcapng section header block", 12));
            }
            big = match self.input.u32_at(8, true) {
                0x1a2b_3c4d => true,
                0x4d3c_2b1a => false,
                m => {
                    let detail = format!("byte-order magic {m:#010x} is not 0x1a2b3c4d");
                    return Err(self.corrupt(None, "pcapng section header block", detail));
                }
            };
        }
        let len = self.input.u32_at(4, big) as usize;
        if len < 12 || len & 3 != 0 || len > MAX_RECORD_LEN {
            let detail = format!(
                "block length {len} (must be a multiple of 4, at least 12, at most {MAX_RECORD_LEN})"
            );
            return Err(self.corrupt(packet, "pcapng block", detail));
        }
        if self.fill(len)? < len {
            return Err(self.truncated(packet, "pcapng block", len));
        }
        let trailer = self.input.u32_at(len - 4, big) as usize;
        if trailer != len {
            let detail = format!("trailing length {trailer} differs from leading length {len}");
            return Err(self.corrupt(packet, "pcapng block", detail));
        }
        let result = match kind {
            PCAPNG_SHB => self.section_header(len).map(|()| Block2::Other),
            PCAPNG_IDB => self.interface_description(len).map(|()| Block2::Other),
            PCAPNG_EPB | PCAPNG_PB | PCAPNG_SPB => {
                self.packet_block(kind, len, big, index).map(Block2::Packet)
            }
            _ => Ok(Block2::Other),
        };
        if let Ok(Block2::Other) = result {
            self.input.consume(len);
        }
        result
    }

    fn section_header(&mut self, len: usize) -> Result<(), TraceError> {
        match PcapNgParser::new(self.input.bytes(len)) {
            Ok((_, parser)) => {
                let big = parser.section().endianness == Endianness::Big;
                self.format = Format::PcapNg {
                    big,
                    parser,
                    interfaces: Vec::new(),
                };
                Ok(())
            }
            Err(e) => Err(self.corrupt(None, "pcapng section header block", e.to_string())),
        }
    }

    fn interface_description(&mut self, len: usize) -> Result<(), TraceError> {
        let Format::PcapNg {
            parser, interfaces, ..
        } = &mut self.format
        else {
            unreachable!("pcapng blocks are read only in pcapng files")
        };
        let slice = &self.input.buf[self.input.start..self.input.start + len];
        let idb = match parser.next_block(slice) {
            Ok((_, Block::InterfaceDescription(idb))) => idb,
            Ok(_) => unreachable!("block type 1 is an interface description"),
            Err(e) => {
                let detail = e.to_string();
                return Err(self.corrupt(None, "pcapng interface description block", detail));
            }
        };
        let number = u32::from(idb.linktype);
        let mut unit = TsUnit::Mul(1000); // default resolution: microseconds
        let mut offset_s = 0i64;
        for opt in idb.options.iter().cloned() {
            match opt {
                InterfaceDescriptionOption::IfTsResol(r) => match TsUnit::from_tsresol(r) {
                    Some(u) => unit = u,
                    None => {
                        let detail = format!("if_tsresol {r:#04x} is out of range");
                        return Err(self.corrupt(
                            None,
                            "pcapng interface description block",
                            detail,
                        ));
                    }
                },
                // Signed seconds per the pcapng spec; pcap-file reads it unsigned.
                InterfaceDescriptionOption::IfTsOffset(o) => offset_s = o as i64,
                _ => {}
            }
        }
        interfaces.push(Interface {
            link: LinkType::from_number(number).ok_or(number),
            unit,
            offset_s,
        });
        Ok(())
    }

    fn packet_block(
        &mut self,
        kind: u32,
        len: usize,
        big: bool,
        index: u64,
    ) -> Result<Record, TraceError> {
        let what = match kind {
            PCAPNG_EPB => "pcapng enhanced packet block",
            PCAPNG_PB => "pcapng packet block",
            _ => "pcapng simple packet block",
        };
        let body_len = len - 12;
        let (interface, raw_ts, data_at, data_len, orig_len) = if kind == PCAPNG_SPB {
            if body_len < 4 {
                return Err(self.corrupt(Some(index), what, format!("block length {len} < 16")));
            }
            let orig_len = self.input.u32_at(8, big);
            // The captured length is what the block holds, at most the original length.
            let data_len = (body_len - 4).min(orig_len as usize);
            (0, None, 12, data_len, orig_len)
        } else {
            if body_len < 20 {
                return Err(self.corrupt(Some(index), what, format!("block length {len} < 32")));
            }
            let interface = if kind == PCAPNG_EPB {
                self.input.u32_at(8, big)
            } else {
                // Obsolete packet block: 16-bit interface id, then a 16-bit drop count.
                let v = self.input.u32_at(8, big);
                if big {
                    v >> 16
                } else {
                    v & 0xffff
                }
            };
            let ts = (u64::from(self.input.u32_at(12, big)) << 32)
                | u64::from(self.input.u32_at(16, big));
            let cap_len = self.input.u32_at(20, big) as usize;
            let orig_len = self.input.u32_at(24, big);
            if cap_len > body_len - 20 {
                let detail =
                    format!("captured length {cap_len} runs past the block's end ({len} bytes)");
                return Err(self.corrupt(Some(index), what, detail));
            }
            (interface, Some(ts), 28, cap_len, orig_len)
        };
        let Format::PcapNg { interfaces, .. } = &self.format else {
            unreachable!("pcapng blocks are read only in pcapng files")
        };
        let Some(iface) = interfaces.get(interface as usize).copied() else {
            let detail = format!(
                "interface id {interface} has no interface description block ({} in this section)",
                interfaces.len()
            );
            return Err(self.corrupt(Some(index), what, detail));
        };
        let link = iface.link.map_err(|number| TraceError::UnknownLinkType {
            at: self.at(Some(index)),
            name: link_type_name(number),
            number,
        })?;
        let ts_ns = match raw_ts {
            None => self.last_ts,
            Some(raw) => {
                let ns = iface.unit.to_ns(raw).map(i128::from);
                let ns = ns.and_then(|ns| {
                    u64::try_from(ns + i128::from(iface.offset_s) * 1_000_000_000).ok()
                });
                ns.ok_or_else(|| TraceError::Timestamp {
                    at: self.at(Some(index)),
                })?
            }
        };
        self.last_ts = ts_ns;
        self.next_index += 1;
        Ok(Record {
            meta: FrameMeta {
                index,
                offset: self.input.offset,
                ts_ns,
                odd_fraction: false,
                interface,
                orig_len,
            },
            link,
            data_at,
            data_len,
            len,
        })
    }
}

/// A pcapng block's meaning for the reader.
enum Block2 {
    End,
    Packet(Record),
    Other,
}
