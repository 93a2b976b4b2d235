#!/usr/bin/env python3
"""Diagnostic (issue 33): replay Linux 6.18 CUBIC's HyStart on a live or simulated download's
client capture, and check the replayed exit against the server's send rate.

Input: a CSV made by tshark from the client interface's capture (live: DIR/client.pcap;
simulator: `wattlab run ... --out DIR --pcap client:wlan0`), one line per packet:

    tshark -r client.pcap -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.ack \
      -e tcp.len -e tcp.options.timestamp.tsval -e tcp.options.timestamp.tsecr \
      -e tcp.window_size -e tcp.options.sack_le -e tcp.options.sack_re -E separator=, > r.csv
    python3 tools/hystart_replay.py --rate-mbps 50 --rtt-ms 90 r.csv [--verify]

Model of the server (docs/live.md, "HyStart at the long-RTT shapes"): each client ACK reaches
the server one constant delay (RTT/2) later; per ACK snd_una = ack, slow start cwnd += newly
ACKed segments (tcp_slow_start), snd_nxt = snd_una + min(cwnd, rwnd) (a cwnd-limited sender),
a new segment's send time is the ACK that released it; `hystart_update` as in tcp_cubic.c of
6.18 (round reset before the low-window test, ACK train with (delay_min + 1 ms)/2 for an
unpaced socket, delay test after 8 samples). Stops at the first SACK (recovery ends slow
start). --verify prints the server's new-data rate (segments/ms, from the data's TSval) in
the ms before and after the replayed exit: Linux sends 2 segments per ACKed one in slow start
and 1 after. A diagnostic, not part of the simulator or its tests.
"""

import csv
import re
import sys

MSS = 1448
D_UP = 0.045  # s, one-way wired delay on the uplink (ACK serialization ~10 us ignored)
D_DOWN = 0.045


def load(path):
    rows = []
    with open(path) as f:
        for r in csv.reader(f):
            if len(r) < 8 or not r[1]:
                continue
            rows.append((float(r[0]), r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5] or 0), int(r[6] or 0), int(r[7] or 0), r[8], r[9]))
    return rows


def main(path, rate=50e6, owd=0.045, paced=False, low_window=16, ack_delta=0.002, verbose=True, rwnd_cap=True):
    global D_UP, D_DOWN
    D_UP = D_DOWN = owd
    rows = load(path)
    server = next(r[1] for r in rows if r[4] > 200)
    acks = [r for r in rows if r[1] != server and r[4] == 0 and r[3] > 1]
    data = [r for r in rows if r[1] == server and r[4] > 0]
    # the request's arrival at the server: first data = IW burst. Its send time: the first data
    # segment's arrival at the client minus the one-way delay (no queue for the first one).
    t_iw = data[0][0] - D_DOWN - (MSS + 66) * 8 / rate
    cwnd = 10
    snd_una = 1
    snd_nxt = 1 + 10 * MSS
    sent = [(1 + (i + 1) * MSS, t_iw) for i in range(10)]  # (end, time)
    si = 0  # index of the oldest un-acked in sent
    # hystart state (bictcp_hystart_reset at init: end_seq = snd_nxt at established = 1)
    end_seq = 1
    round_start = last_ack = None
    curr_rtt = None
    sample_cnt = 0
    delay_min = None
    found = None
    ssthresh = 1 << 30
    srtt = None
    rounds = []
    cur = None
    wscale = 7
    for (c, _, seq, ack, ln, tsv, tse, win, sle, sre) in acks:
        t = c + D_UP
        if ack <= snd_una:
            continue
        # newest segment covered
        newest = None
        n_acked = 0
        while si < len(sent) and sent[si][0] <= ack:
            newest = sent[si][1]
            si += 1
            n_acked += 1
        if newest is None:
            snd_una = ack
            continue
        rtt = max(t - newest, 1e-6)
        srtt = rtt if srtt is None else srtt + (rtt - srtt) / 8
        snd_una = ack
        # cubictcp_acked -> hystart_update (before cong_avoid)
        if delay_min is None or rtt < delay_min:
            delay_min = rtt
        if found is None and cwnd < ssthresh:
            if snd_una > end_seq:
                # bictcp_hystart_reset
                round_start = last_ack = t
                end_seq = snd_nxt
                curr_rtt = None
                sample_cnt = 0
                cur = {'start': t, 'cwnd0': cwnd, 'acks': 0, 'train_ok_until': 0.0, 'broken_at': None, 'min8': None, 'rtts': [], 'maxgap': 0.0, 'span': 0.0}
                rounds.append(cur)
            if cwnd >= low_window:
                cur['acks'] += 1
                cur.setdefault('first_ack', ack)
                gap = t - last_ack
                if gap <= ack_delta:
                    last_ack = t
                    rate = (2 * max(cwnd, (snd_nxt - snd_una) // MSS) * MSS / srtt) if srtt else 0
                    ackd = min(0.001, 4 * 65536 / rate) if rate else 0
                    thr = delay_min + ackd
                    if not paced:
                        thr /= 2
                    cur['span'] = t - round_start
                    cur['thr'] = thr
                    if t - round_start > thr:
                        found = ('train', cwnd, t)
                        ssthresh = cwnd
                else:
                    if cur['broken_at'] is None:
                        cur['broken_at'] = (t - round_start, gap)
                cur['maxgap'] = max(cur['maxgap'], gap)
                cur['rtts'].append(rtt)
                curr_rtt = rtt if curr_rtt is None else min(curr_rtt, rtt)
                if sample_cnt < 8:
                    sample_cnt += 1
                else:
                    thr_d = delay_min + min(max(delay_min / 8, 0.004), 0.016)
                    cur['delay_thr'] = thr_d
                    if cur['min8'] is None:
                        cur['min8'] = curr_rtt
                    if found is None and curr_rtt > thr_d:
                        found = ('delay', cwnd, t)
                        ssthresh = cwnd
        # cong_avoid: slow start only (we stop reporting at the first loss)
        if cwnd < ssthresh:
            cwnd = min(cwnd + n_acked, ssthresh)
        rwnd = win * (1 << wscale)
        limit = snd_una + (cwnd * MSS)
        if rwnd_cap:
            limit = min(limit, snd_una + rwnd)
        while snd_nxt + MSS <= limit:
            snd_nxt += MSS
            sent.append((snd_nxt, t))
        if sle:  # first SACK: a loss; stop
            break
    # consistency: data arriving before the replay could have sent it
    sendtime = {e: s for e, s in sent}
    early = 0
    worst = 0.0
    for (c, _, seq, ack, ln, *_r) in data:
        e = seq + ln
        if e in sendtime:
            ow = c - sendtime[e]
            if ow < D_DOWN:
                early += 1
                worst = max(worst, D_DOWN - ow)
    print(f'{path}: delay_min {delay_min*1e3:.2f} ms, exit {found}, replayed segments {len(sent)}, early arrivals {early} (worst {worst*1e3:.2f} ms)')
    if verbose:
        for i, r in enumerate(rounds):
            rt = r['rtts']
            print(f"  round {i}: start {r['start']-acks[0][0]:.3f} s cwnd0 {r['cwnd0']} acks {r['acks']} span {r['span']*1e3:.1f} ms thr {r.get('thr',0)*1e3:.1f} broken {None if r['broken_at'] is None else tuple(round(x*1e3,2) for x in r['broken_at'])} maxgap {r['maxgap']*1e3:.2f} ms  rtt min {min(rt)*1e3 if rt else 0:.1f} max {max(rt)*1e3 if rt else 0:.1f} min8 {(r['min8'] or 0)*1e3:.1f} dthr {r.get('delay_thr',0)*1e3:.1f}")
    return found


def verify(p, rate, owd):
    """The server's new-data rate around the replayed exit (or before the first SACK)."""
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        found = main(p, rate=rate, owd=owd, verbose=False)
    rows = load(p)
    server = next(r[1] for r in rows if r[4] > 200)
    data = [r for r in rows if r[1] == server and r[4] > 0]
    t_iw = data[0][0] - owd - 1514 * 8 / rate
    ts0 = data[0][5]
    first = {}
    for r in data:
        first.setdefault(r[2], r)
    hi = {}
    for s, r in first.items():
        k = r[5] - ts0
        hi[k] = max(hi.get(k, 0), s + r[4])
    run = 0
    cum = {}
    for k in range(0, max(hi) + 1):
        run = max(run, hi.get(k, 0))
        cum[k] = run // MSS

    def rate_at(a, b):
        return (cum.get(b, 0) - cum.get(a, 0)) / (b - a)
    sack = next((r for r in rows if r[1] != server and r[8]), None)
    ksack = int(round((sack[0] + owd - t_iw) * 1000)) if sack else None
    if found:
        kx = int(round((found[2] - t_iw) * 1000))
        print(f"{p}: replay exit {found[0]} cwnd {found[1]} at server ms {kx}; first SACK at server ms {ksack}; "
              f"sent/ms in [-10,0): {rate_at(kx - 10, kx):.1f}, [0,+5): {rate_at(kx, kx + 5):.1f}")
    elif ksack is not None:
        print(f"{p}: replay: no exit; first SACK at server ms {ksack}; sent/ms in the 10 ms before it {rate_at(ksack - 10, ksack):.1f}")
    else:
        print(f"{p}: replay: no exit, no SACK")


if __name__ == '__main__':
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('csv', nargs='+')
    ap.add_argument('--rate-mbps', type=float, required=True)
    ap.add_argument('--rtt-ms', type=float, required=True)
    ap.add_argument('--paced', action='store_true', help='threshold not halved (an fq-paced socket)')
    ap.add_argument('--verify', action='store_true')
    ap.add_argument('-q', action='store_true', help='no per-round lines')
    a = ap.parse_args()
    for p in a.csv:
        if a.verify:
            verify(p, a.rate_mbps * 1e6, a.rtt_ms / 2000)
        else:
            main(p, rate=a.rate_mbps * 1e6, owd=a.rtt_ms / 2000, paced=a.paced, verbose=not a.q)
