import { NULL_PID, PACKET_SIZE, packetPid } from "./ts-packet.js";

/**
 * Makes a transport stream continuous (ISO/IEC 13818-1 2.4.3.3): every PID's
 * continuity_counter counts on from what this stream last carried, across a join (PAT and
 * PMT copies, the packets since a random-access point) and across source switches, so a
 * player sees no continuity error. {@link joinAligned} starts another viewer on the same
 * stream mid-way. A source switch
 * ({@link discontinuity}) sets discontinuity_indicator (2.4.3.5) on the next packet of
 * each PID; a packet without an adaptation field gets an adaptation-only packet before
 * it that carries the flag. Null packets are dropped: they carry nothing and a viewer
 * needs no padding.
 * @example
 * const cc = new ContinuityRewriter();
 * out.write(Buffer.concat(cc.rewrite(packets)));
 */
export class ContinuityRewriter {
  /** Last continuity_counter this viewer received, per PID. */
  private readonly last = new Map<number, number>();
  /** PIDs that still owe a discontinuity_indicator since the last switch. */
  private flagged = new Set<number>();
  private switched = false;

  /** The next packets come from another source (a reconnect, a splice). */
  discontinuity(): void {
    this.switched = true;
    this.flagged = new Set();
  }

  /**
   * A join point for a viewer that starts following this stream now: `packets` are a
   * random-access point's PSI copies and every packet this stream carried since that
   * point, newest last. Each PID's counters are set backwards from the counter this stream
   * last gave it, so the viewer's copy ends exactly where the stream is and its next
   * packets follow with no break; this stream's own state is left as it is. Null packets
   * are dropped; a packet is copied only when it changes.
   */
  joinAligned(packets: readonly Buffer[]): Buffer[] {
    /** Per PID, the counter the packet before (in stream order) must carry. */
    const before = new Map<number, number>();
    const out: Buffer[] = [];
    for (let i = packets.length - 1; i >= 0; i -= 1) {
      const p = packets[i]!;
      const pid = packetPid(p);
      if (pid === NULL_PID) continue;
      const b3 = p[3]!;
      const cc = before.get(pid) ?? this.last.get(pid) ?? b3 & 0x0f;
      // 2.4.3.3: only a packet with payload moved the counter from the one before it.
      before.set(pid, (b3 & 0x10) !== 0 ? (cc - 1) & 0x0f : cc);
      out.push((b3 & 0x0f) === cc ? p : withCounter(p, cc));
    }
    return out.reverse();
  }

  /** Packets rewritten for this viewer; a packet is copied only when it changes. */
  rewrite(packets: readonly Buffer[]): Buffer[] {
    const out: Buffer[] = [];
    for (const p of packets) {
      const pid = packetPid(p);
      if (pid === NULL_PID) continue;
      const b3 = p[3]!;
      const hasPayload = (b3 & 0x10) !== 0;
      const prev = this.last.get(pid);
      // 2.4.3.3: the counter does not move on a packet without payload.
      const cc = prev === undefined ? b3 & 0x0f : hasPayload ? (prev + 1) & 0x0f : prev;
      let packet = p;
      if (this.switched && !this.flagged.has(pid)) {
        this.flagged.add(pid);
        const hasAf = (b3 & 0x20) !== 0 && p[4]! > 0;
        if (hasAf) {
          packet = Buffer.from(p);
          packet[5] = packet[5]! | 0x80;
        } else out.push(flagPacket(pid, prev ?? (cc - (hasPayload ? 1 : 0)) & 0x0f));
      }
      if ((b3 & 0x0f) !== cc) {
        if (packet === p) packet = withCounter(p, cc);
        else packet[3] = (b3 & 0xf0) | cc;
      }
      this.last.set(pid, cc);
      out.push(packet);
    }
    return out;
  }
}

/** A copy of `p` with continuity_counter `cc`. */
function withCounter(p: Buffer, cc: number): Buffer {
  const copy = Buffer.from(p);
  copy[3] = (p[3]! & 0xf0) | cc;
  return copy;
}

/** An adaptation-field-only packet of `pid` with discontinuity_indicator set, then stuffing. */
function flagPacket(pid: number, cc: number): Buffer {
  const p = Buffer.alloc(PACKET_SIZE, 0xff);
  p[0] = 0x47;
  p[1] = (pid >> 8) & 0x1f;
  p[2] = pid & 0xff;
  p[3] = 0x20 | (cc & 0x0f);
  p[4] = PACKET_SIZE - 5;
  p[5] = 0x80;
  return p;
}
