/**
 * `{"channels":[…]}` of a channel list, one piece per channel: the bytes of
 * `JSON.stringify({ channels: channels.map(render) })`, rendered as the answer is read
 * (`piecewiseBody`) so a 40,000-channel list never exists whole as objects or one string.
 * `channels` is the catalog's list of the moment (replaced, never changed in place, by a
 * write), so an answer streamed across a write is still one consistent catalog.
 */
export function* channelListJson<C>(
  channels: Iterable<C>,
  render: (channel: C) => unknown,
): Generator<string, void, undefined> {
  yield '{"channels":[';
  let first = true;
  for (const ch of channels) {
    yield first ? JSON.stringify(render(ch)) : `,${JSON.stringify(render(ch))}`;
    first = false;
  }
  yield "]}";
}
