"""Writes the small 802.11 test captures beside this file (see README.md).

Run with scapy installed (`pip install scapy==2.8.0`):  python tests/data/wlan/make_captures.py
Deterministic: fixed timestamps and contents, so the files only change if this script does.
"""
import struct
from pathlib import Path

from scapy.all import (
    IP, UDP, TCP, LLC, SNAP, Dot11, Dot11QoS, Dot11Beacon, Dot11Elt, Dot11ProbeReq,
    Dot11ProbeResp, Dot11Auth, Dot11AssoReq, Dot11AssoResp, Raw,
)

HERE = Path(__file__).parent
AP = "02:00:00:00:00:01"
STA = "02:00:00:00:00:02"
BCAST = "ff:ff:ff:ff:ff:ff"
T0 = 1_704_067_200  # 2024-01-01 00:00:00 UTC


def ip_udp(src, dst, n):
    return LLC(dsap=0xAA, ssap=0xAA, ctrl=3) / SNAP(OUI=0, code=0x0800) / IP(src=src, dst=dst) / UDP(sport=49152, dport=5001) / Raw(b"\0" * n)


def amsdu_subframe(da, sa, payload, last):
    # 802.11-2020 9.3.2.2.2: DA, SA, length (big-endian), MSDU, padded to 4 octets except the last.
    msdu = bytes(payload)
    mac = lambda a: bytes.fromhex(a.replace(":", ""))
    sub = mac(da) + mac(sa) + struct.pack(">H", len(msdu)) + msdu
    return sub if last else sub + b"\0" * (-len(sub) % 4)


def tim(dtim_count, dtim_period, ctrl, bitmap):
    return Dot11Elt(ID=5, info=bytes([dtim_count, dtim_period, ctrl]) + bitmap)


# Radiotap fields (radiotap.org "defined fields"): bit -> (alignment, struct format).
RT_FIELDS = {0: (8, "<Q"), 1: (1, "<B"), 2: (1, "<B"), 3: (2, "<HH"), 5: (1, "<b"),
             19: (1, "<BBB"), 20: (4, "<IHBB"), 21: (2, "<HBB4BBBH"), 23: (2, "<6H")}


def radiotap(fields):
    """A radiotap header with `fields` ({bit: tuple of values}), each at its natural alignment.

    Built here rather than with scapy's RadioTap, whose 2.8.0 MCS field loses its `known` byte
    when TSFT and A-MPDU status are present and whose VHT field drops mcs_nss."""
    present = sum(1 << b for b in fields)
    body = b""
    for bit in sorted(fields):
        align, fmt = RT_FIELDS[bit]
        pos = 8 + len(body)
        body += b"\0" * (-pos % align) + struct.pack(fmt, *fields[bit])
    return struct.pack("<BBHI", 0, 0, 8 + len(body), present) + body


FCS, BAD_FCS = 0x10, 0x40


def frames():
    """The 802.11 frames, each with the radiotap fields to put in front of it (TSFT added later)."""
    ht = {1: (FCS,), 2: (12,), 3: (5180, 0x0140), 5: (-40,)}
    # HT MCS 15, 40 MHz, short GI (known: bandwidth, MCS, GI); A-MPDU reference 7, last-known.
    mcs = {1: (FCS,), 3: (5180, 0x0140), 5: (-45,), 19: (0x07, 0x05, 15), 20: (7, 0x0004, 0, 0)}
    beacon = (Dot11(type=0, subtype=8, addr1=BCAST, addr2=AP, addr3=AP, SC=16)
              / Dot11Beacon(timestamp=1, beacon_interval=100, cap=0x0411)
              / Dot11Elt(ID=0, info=b"wattlab") / tim(0, 3, 0x01, b"\x02"))
    yield ht, beacon
    yield ht, Dot11(type=0, subtype=4, addr1=BCAST, addr2=STA, addr3=BCAST) / Dot11ProbeReq() / Dot11Elt(ID=0, info=b"")
    yield ht, Dot11(type=0, subtype=5, addr1=STA, addr2=AP, addr3=AP) / Dot11ProbeResp(beacon_interval=100) / Dot11Elt(ID=0, info=b"wattlab")
    yield ht, Dot11(type=0, subtype=11, addr1=AP, addr2=STA, addr3=AP) / Dot11Auth(algo=0, seqnum=1)
    yield ht, Dot11(type=0, subtype=0, addr1=AP, addr2=STA, addr3=AP) / Dot11AssoReq(listen_interval=10) / Dot11Elt(ID=0, info=b"wattlab")
    yield ht, Dot11(type=0, subtype=1, addr1=STA, addr2=AP, addr3=AP) / Dot11AssoResp(status=0, AID=0xC001) / Dot11Elt(ID=1, info=b"\x8c\x12\x98\x24")
    # Action: Block Ack ADDBA request (category 3, action 0) and response (action 1).
    yield ht, Dot11(type=0, subtype=13, addr1=AP, addr2=STA, addr3=AP) / Raw(bytes([3, 0, 1, 0x02, 0x10, 0, 0, 0x10, 0]))
    yield ht, Dot11(type=0, subtype=13, addr1=STA, addr2=AP, addr3=AP) / Raw(bytes([3, 1, 1, 0, 0, 0x02, 0x10, 0, 0]))
    # Action: unprotected S1G (22), TWT Setup (6): dialog token, then a TWT element (ID 216).
    twt = bytes([22, 6, 1, 216, 15, 0x00, 0x01, 0x80]) + b"\0" * 12
    yield ht, Dot11(type=0, subtype=13, addr1=AP, addr2=STA, addr3=AP) / Raw(twt)
    # Control: RTS, CTS, ACK, BAR, BA, PS-Poll (duration field = AID | 0xC000).
    yield ht, Dot11(type=1, subtype=11, ID=200, addr1=AP, addr2=STA)
    yield ht, Dot11(type=1, subtype=12, ID=150, addr1=STA)
    yield ht, Dot11(type=1, subtype=13, addr1=STA)
    yield ht, Dot11(type=1, subtype=8, addr1=AP, addr2=STA) / Raw(bytes([0x04, 0x00, 0x10, 0x00]))
    yield ht, Dot11(type=1, subtype=9, addr1=STA, addr2=AP) / Raw(bytes([0x05, 0x00, 0x10, 0x00]) + b"\xff" * 8)
    yield ht, Dot11(type=1, subtype=10, ID=0xC001, addr1=AP, addr2=STA)
    # Null with PM = 1, then QoS Null with PM = 0 (the station dozes, then wakes).
    yield ht, Dot11(type=2, subtype=4, FCfield=0x11, addr1=AP, addr2=STA, addr3=AP)
    yield ht, Dot11(type=2, subtype=12, FCfield=0x01, addr1=AP, addr2=STA, addr3=AP) / Dot11QoS(TID=0)
    # QoS data down at HT MCS 15 (A-MPDU reference 7), then its retry.
    down = Dot11(type=2, subtype=8, FCfield=0x02, addr1=STA, addr2=AP, addr3=AP, SC=32) / Dot11QoS(TID=5) / ip_udp("10.0.0.9", "10.0.0.2", 1000)
    yield mcs, down
    retry = down.copy()
    retry.FCfield = 0x0A  # From DS | Retry
    yield mcs, retry
    # Plain data up, legacy rate.
    yield ht, Dot11(type=2, subtype=0, FCfield=0x01, addr1=AP, addr2=STA, addr3=AP) / ip_udp("10.0.0.2", "10.0.0.9", 100)
    # A protected data frame: CCMP header + ciphertext (opaque).
    yield ht, Dot11(type=2, subtype=8, FCfield=0x42, addr1=STA, addr2=AP, addr3=AP) / Dot11QoS(TID=0) / Raw(b"\x01\x00\x00\x20\x00\x00\x00\x00" + b"\x5a" * 120)
    # A-MSDU (QoS control bit 7) of two IPv4 MSDUs.
    s1 = amsdu_subframe(STA, "02:00:00:00:00:09", ip_udp("10.0.0.9", "10.0.0.2", 301), last=False)
    s2 = amsdu_subframe(STA, "02:00:00:00:00:09", ip_udp("10.0.0.9", "10.0.0.2", 500), last=True)
    yield mcs, Dot11(type=2, subtype=8, FCfield=0x02, addr1=STA, addr2=AP, addr3=AP) / Dot11QoS(TID=0, A_MSDU_Present=1) / Raw(s1 + s2)
    # VHT (802.11ac) and HE (802.11ax) PHY fields.
    # VHT MCS 9, 2 streams, 80 MHz, short GI (known: GI, bandwidth).
    vht = {1: (FCS,), 3: (5180, 0x0140), 5: (-50,), 21: (0x0044, 0x04, 4, 0x92, 0, 0, 0, 0, 0, 0)}
    yield vht, Dot11(type=2, subtype=8, FCfield=0x02, addr1=STA, addr2=AP, addr3=AP) / Dot11QoS(TID=0) / ip_udp("10.0.0.9", "10.0.0.2", 1400)
    # HE SU, MCS 7 (data1: MCS known, BW known), 1.6 us GI (data2: GI known), 20 MHz, NSTS 2.
    he = {1: (FCS,), 3: (5180, 0x0140), 5: (-52,), 23: (0x4020, 0x0002, 0x0700, 0, 0x0010, 0x0002)}
    yield he, Dot11(type=2, subtype=8, FCfield=0x02, addr1=STA, addr2=AP, addr3=AP) / Dot11QoS(TID=0) / ip_udp("10.0.0.9", "10.0.0.2", 1200)
    # A frame with a bad FCS (radiotap flag 0x40): a monitor capture normally has some.
    yield {**ht, 1: (FCS | BAD_FCS,)}, Dot11(type=2, subtype=0, addr1=STA, addr2=AP, addr3=AP) / Raw(b"\x13" * 40)


STA2 = "02:00:00:00:00:03"
T_PSM = T0 + 3600  # psm.pcap starts an hour later (2024-01-01 01:00:00 UTC)


def psm_frames():
    """psm.pcap: a documented power-save sequence on 802.11a (5180 MHz), as (PPDU end in µs
    from T_PSM, radiotap rate in 500 kb/s units, frame). Each record's time is its PPDU's end
    (the `observed` policy's default `stamp=end`); airtimes (802.11a, 20 µs + 4 µs symbols):
    beacon 55 B at 6 Mb/s 100 µs, Null 28 B at 24 Mb/s 32 µs, PS-Poll and ACK at 24 Mb/s 28 µs,
    a data frame of 136 B (100-byte IP packet) at 54 Mb/s 44 µs; SIFS 16 µs.

    1. [0, 100) beacon (TIM without AID 1); the station is awake (no PM bit seen yet).
    2. [400, 444) the AP's data to another station, [460, 488) its ACK: overheard, not costed.
    3. [1000, 1032) the station's Null with PM = 1, [1048, 1076) the AP's ACK: it dozes at 1076.
    4. [102400, 102500) beacon with AID 1 in the TIM: it wakes for it and stays.
    5. [102600, 102628) PS-Poll (AID 1, PM = 1), [102644, 102672) the AP's ACK.
    6. [103000, 103044) data to it with More Data, [103060, 103088) its ACK.
    7. [103200, 103228) PS-Poll; [103300, 103344) data to it, no More Data; its ACK is NOT in
       the capture (a monitor misses frames): inferred at [103360, 103388); it dozes at 103388.
    8. [204800, 204900) beacon without its AID: it wakes for it and dozes at 204900.
    9. [250000, 250032) its Null with PM = 0 (it woke to send), [250048, 250076) the AP's ACK:
       active from then on; the capture ends at 250076.
    """
    def beacon(aid_bit):
        return (Dot11(type=0, subtype=8, addr1=BCAST, addr2=AP, addr3=AP, SC=16)
                / Dot11Beacon(timestamp=1, beacon_interval=100, cap=0x0411)
                / Dot11Elt(ID=0, info=b"wattlab") / tim(1, 3, 0x00, b"\x02" if aid_bit else b"\x00"))

    def ack(ra):
        return Dot11(type=1, subtype=13, addr1=ra)

    def data(to, more):
        return Dot11(type=2, subtype=0, FCfield=0x02 | (0x20 if more else 0), addr1=to, addr2=AP, addr3=AP) / ip_udp("10.0.0.9", "10.0.0.2", 72)

    null = lambda pm: Dot11(type=2, subtype=4, FCfield=0x01 | (0x10 if pm else 0), addr1=AP, addr2=STA, addr3=AP)
    poll = Dot11(type=1, subtype=10, FCfield=0x10, ID=0xC001, addr1=AP, addr2=STA)
    yield 100, 12, beacon(False)
    yield 444, 108, data(STA2, False)
    yield 488, 48, ack(AP)
    yield 1032, 48, null(True)
    yield 1076, 48, ack(STA)
    yield 102500, 12, beacon(True)
    yield 102628, 48, poll
    yield 102672, 48, ack(STA)
    yield 103044, 108, data(STA, True)
    yield 103088, 48, ack(AP)
    yield 103228, 48, poll
    yield 103344, 108, data(STA, False)
    yield 204900, 12, beacon(False)
    yield 250032, 48, null(False)
    yield 250076, 48, ack(STA)


T_TWT = T0 + 7200  # twt.pcap starts two hours after T0


def twt_element(request, command, target_us):
    """A TWT element (ID 216) with an individual parameter set, unannounced, wake interval
    20 ms (mantissa 20000, exponent 0), nominal minimum wake duration 8 x 256 us = 2048 us
    (IEEE 802.11ax-2021 9.4.2.199)."""
    req = (1 if request else 0) | (command << 1) | 0x40
    params = struct.pack("<HQBHB", req, target_us, 8, 20000, 0)
    return bytes([216, 1 + len(params), 0x00]) + params


def twt_frames():
    """twt.pcap: an individual TWT agreement on 802.11a (5180 MHz), as (PPDU end in us from
    T_TWT, rate in 500 kb/s, frame); radiotap TSFT is each PPDU's start in us from T_TWT (so
    TSF 0 is T_TWT). TWT Setup frames are 48 B (40 us at 24 Mb/s).

    1. [0, 100) beacon; the station is active.
    2. [1000, 1040) its TWT Setup request, [1056, 1084) the AP's ACK.
    3. [2000, 2040) the AP's TWT Setup response, Accept, Target Wake Time TSF 10000 us;
       [2056, 2084) the station's ACK: it dozes at 2084 until the first SP.
    4. SPs [10000 + 20000 k, + 2048): awake through each (5 before the beacon, none with a frame).
    5. [102400, 102500) a beacon: the TWT station reads none (asleep).
    6. [110500, 110544) data to it in the SP at 110000; its ACK is not captured (inferred at
       [110560, 110588)); it dozes at the SP's end, 112048.
    7. [120000, 120044) its own data (PM = 1) outside an SP, [120060, 120088) the AP's ACK;
       the capture ends there.
    """
    setup = lambda to, frm, body: Dot11(type=0, subtype=13, addr1=to, addr2=frm, addr3=AP) / Raw(bytes([22, 6, 1]) + body)
    yield 100, 12, (Dot11(type=0, subtype=8, addr1=BCAST, addr2=AP, addr3=AP, SC=16)
                    / Dot11Beacon(timestamp=1, beacon_interval=100, cap=0x0411)
                    / Dot11Elt(ID=0, info=b"wattlab") / tim(1, 3, 0x00, b"\x00"))
    yield 1040, 48, setup(AP, STA, twt_element(True, 0, 0))
    yield 1084, 48, Dot11(type=1, subtype=13, addr1=STA)
    yield 2040, 48, setup(STA, AP, twt_element(False, 4, 10_000))
    yield 2084, 48, Dot11(type=1, subtype=13, addr1=AP)
    yield 102500, 12, (Dot11(type=0, subtype=8, addr1=BCAST, addr2=AP, addr3=AP, SC=32)
                       / Dot11Beacon(timestamp=1, beacon_interval=100, cap=0x0411)
                       / Dot11Elt(ID=0, info=b"wattlab") / tim(0, 3, 0x00, b"\x00"))
    yield 110544, 108, Dot11(type=2, subtype=0, FCfield=0x02, addr1=STA, addr2=AP, addr3=AP) / ip_udp("10.0.0.9", "10.0.0.2", 72)
    yield 120044, 108, Dot11(type=2, subtype=0, FCfield=0x11, addr1=AP, addr2=STA, addr3=AP) / ip_udp("10.0.0.2", "10.0.0.9", 72)
    yield 120088, 48, Dot11(type=1, subtype=13, addr1=STA)


def with_fcs(pkt):
    """The frame's bytes with its real FCS (CRC-32, little-endian) appended."""
    import zlib
    b = bytes(pkt)
    return b + struct.pack("<I", zlib.crc32(b) & 0xFFFFFFFF)


def write(name, linktype, records, times_us=None):
    """A classic little-endian µs pcap: scapy builds the frames, the container is this simple.
    Records are 100 ms apart from T0 unless `times_us` gives each one's time (µs since the epoch)."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)]
    for i, data in enumerate(records):
        t = times_us[i] if times_us else (T0 + i // 10) * 1_000_000 + (i % 10) * 100_000
        out.append(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(data), len(data)) + data)
    (HERE / name).write_bytes(b"".join(out))


def main():
    rt = []
    for i, (fields, frame) in enumerate(frames()):
        hdr = radiotap({0: (1_000_000 + 1000 * i,), **fields})
        rt.append(hdr + with_fcs(frame))
    write("radiotap.pcap", 127, rt)
    # Plain 802.11 (105): the same frames without radiotap and without FCS, bad-FCS one left out.
    plain = [bytes(f) for _, f in list(frames())[:-1]]
    write("ieee80211.pcap", 105, plain)
    # The power-save sequence for the `observed` policy (psm_frames' docstring).
    seq = list(psm_frames())
    records = [radiotap({1: (FCS,), 2: (rate,), 3: (5180, 0x0140)}) + with_fcs(f) for _, rate, f in seq]
    write("psm.pcap", 127, records, [T_PSM * 1_000_000 + t for t, _, _ in seq])
    # The TWT agreement (twt_frames' docstring); TSFT = each PPDU's start from T_TWT.
    seq = list(twt_frames())
    airtime = {12: lambda n: 20 + 4 * -(-(16 + 8 * n + 6) // 24), 48: lambda n: 20 + 4 * -(-(16 + 8 * n + 6) // 96),
               108: lambda n: 20 + 4 * -(-(16 + 8 * n + 6) // 216)}
    records = []
    for t, rate, f in seq:
        frame = with_fcs(f)
        start = t - airtime[rate](len(frame))
        records.append(radiotap({0: (start,), 1: (FCS,), 2: (rate,), 3: (5180, 0x0140)}) + frame)
    write("twt.pcap", 127, records, [T_TWT * 1_000_000 + t for t, _, _ in seq])


if __name__ == "__main__":
    main()
