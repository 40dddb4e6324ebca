/**
 * AAC raw frames (an `mp4a` track) to ADTS (ISO/IEC 13818-7 6.2 / 14496-3 1.A.2), the
 * form MPEG-TS carries as stream_type 0x0F.
 */

/** What ADTS needs of an AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1). */
export interface AacConfig {
  /** Audio object type of the core (2 = AAC LC); HE-AAC's SBR/PS signalled implicitly. */
  readonly objectType: number;
  readonly frequencyIndex: number;
  readonly channelConfiguration: number;
}

/** A bit reader over an AudioSpecificConfig. */
function bits(bytes: Uint8Array) {
  let pos = 0;
  return (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = bytes[pos >> 3];
      if (byte === undefined) throw new Error("AudioSpecificConfig: truncated");
      v = v * 2 + ((byte >> (7 - (pos & 7))) & 1);
      pos++;
    }
    return v;
  };
}

/**
 * Reads an AudioSpecificConfig. HE-AAC (object type 5 or 29, explicit signalling) gives
 * its core object type and core frequency: ADTS carries the core, and decoders find SBR
 * and PS in the frames (implicit signalling).
 */
export function parseAudioSpecificConfig(asc: Uint8Array): AacConfig {
  const read = bits(asc);
  const objectType = () => {
    const t = read(5);
    return t === 31 ? 32 + read(6) : t;
  };
  const frequency = () => {
    const i = read(4);
    if (i === 15)
      throw new Error("AudioSpecificConfig: an explicit sampling frequency has no ADTS index");
    return i;
  };
  let type = objectType();
  const frequencyIndex = frequency();
  const channelConfiguration = read(4);
  if (type === 5 || type === 29) {
    frequency(); // extensionSamplingFrequencyIndex: the SBR rate
    type = objectType();
  }
  if (type < 1 || type > 4)
    throw new Error(`AAC object type ${type} cannot be carried in ADTS (only 1-4)`);
  if (channelConfiguration === 0)
    throw new Error(
      "AAC channel configuration 0 (a program_config_element) is not supported in ADTS",
    );
  return { objectType: type, frequencyIndex, channelConfiguration };
}

/** The 7-byte ADTS header (no CRC) of one raw frame of `frameLength` bytes. */
export function adtsHeader(c: AacConfig, frameLength: number): Buffer {
  const length = frameLength + 7;
  if (length > 0x1fff) throw new Error(`AAC frame of ${frameLength} bytes is too long for ADTS`);
  const h = Buffer.alloc(7);
  h[0] = 0xff;
  h[1] = 0xf1; // syncword, MPEG-4, layer 0, protection_absent
  h[2] = ((c.objectType - 1) << 6) | (c.frequencyIndex << 2) | (c.channelConfiguration >> 2);
  h[3] = ((c.channelConfiguration & 3) << 6) | (length >> 11);
  h[4] = (length >> 3) & 0xff;
  h[5] = ((length & 7) << 5) | 0x1f; // buffer fullness 0x7FF: variable rate
  h[6] = 0xfc;
  return h;
}
