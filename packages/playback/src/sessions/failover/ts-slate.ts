import type { TsSegment } from "../../ts/segment-cutter.js";
import { PACKET_SIZE } from "../../ts/ts-packet.js";
import { SLATE_DURATION_SEC, type SlateHeight, slateTs } from "./slate-clip.js";

/**
 * Plays the slate into a TS channel's output while every source is down (extensions
 * "Fallback sources and the slate"): one slate segment per {@link SLATE_DURATION_SEC},
 * each a discontinuity (the clip's timestamps start again every time), its packets also
 * handed to `stream.ts` viewers. After `maxMs` it stops and calls `expired`.
 */
export class TsSlate {
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;

  constructor(
    private readonly o: {
      readonly height: SlateHeight;
      readonly maxMs: number;
      publish(seg: TsSegment): void;
      packets(packets: Buffer[]): void;
      expired(): void;
    },
  ) {}

  get playing(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.startedAt = Date.now();
    this.tick();
    this.timer = setInterval(() => this.tick(), SLATE_DURATION_SEC * 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    if (Date.now() - this.startedAt >= this.o.maxMs) {
      this.stop();
      this.o.expired();
      return;
    }
    let bytes: Buffer;
    try {
      bytes = slateTs(this.o.height);
    } catch {
      // An install without the slate's files plays no slate rather than failing the process.
      this.stop();
      return;
    }
    this.o.publish({
      bytes,
      durationSec: SLATE_DURATION_SEC,
      startPts: 0,
      discontinuity: true,
      independent: true,
    });
    const packets: Buffer[] = [];
    for (let at = 0; at + PACKET_SIZE <= bytes.length; at += PACKET_SIZE)
      packets.push(bytes.subarray(at, at + PACKET_SIZE));
    this.o.packets(packets);
  }
}
