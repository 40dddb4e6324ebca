import type HlsType from "hls.js";
import { useEffect, useRef, useState } from "preact/hooks";

/**
 * Plays a preview URL inline. hls.js is loaded on first use (its own chunk, not
 * part of the first load) and runs without a worker, so the CSP needs only
 * `blob:` in `media-src` for Media Source Extensions.
 */
export function PreviewPlayer({ url, title }: { url: string; title: string }) {
  const video = useRef<HTMLVideoElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const el = video.current;
    if (el === null) return;
    let hls: HlsType | undefined;
    let live = true;
    setError(null);
    void import("hls.js").then(({ default: Hls }) => {
      if (!live) return;
      if (!Hls.isSupported()) {
        if (el.canPlayType("application/vnd.apple.mpegurl") !== "") el.src = url;
        else setError("this browser cannot play HLS");
        return;
      }
      hls = new Hls({ enableWorker: false, lowLatencyMode: true });
      hls.on(Hls.Events.ERROR, (_e, d) => {
        if (d.fatal) setError(`playback failed: ${d.details}`);
      });
      hls.on(Hls.Events.MANIFEST_PARSED, () => {
        el.play().catch(() => {
          // autoplay refused: the controls let the admin start it
        });
      });
      hls.loadSource(url);
      hls.attachMedia(el);
    });
    return () => {
      live = false;
      hls?.destroy();
    };
  }, [url]);
  return (
    <div class="preview">
      <video
        ref={video}
        class="preview-video"
        controls
        muted
        playsInline
        aria-label={`Preview of ${title}`}
        data-testid="preview-video"
      />
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
