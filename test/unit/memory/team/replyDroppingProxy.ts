// A TCP proxy on 127.0.0.1 in front of the team server that loses the reply of one chosen PUT: the
// server receives and stores it, the client's connection is cut before a byte of the answer arrives.
// That is the "acknowledged, but the reply was lost" case (a server dying between commit and reply, a
// load balancer dropping the connection), which a kill alone hits only by luck of timing.
import net from 'node:net';

export interface ReplyDroppingProxy {
  url: string;
  /** Called once the chosen PUT's reply was dropped (the server had answered it). */
  dropped: Promise<void>;
  close(): Promise<void>;
}

/** Forwards to `upstreamPort`; the reply to the `nth` PUT (1-based, over all connections) is dropped. */
export function startReplyDroppingProxy(upstreamPort: number, nth: number): Promise<ReplyDroppingProxy> {
  let puts = 0;
  let markDropped: () => void = () => undefined;
  const dropped = new Promise<void>((resolve) => {
    markDropped = resolve;
  });
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    // HTTP/1.1 without pipelining: what the server sends after a request began is that request's reply.
    let current = 0;
    client.on('data', (chunk: Buffer) => {
      if (chunk.subarray(0, 4).toString('latin1') === 'PUT ') current = ++puts;
      else if (/^[A-Z]+ \//.test(chunk.subarray(0, 10).toString('latin1'))) current = 0;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (current === nth) {
        client.destroy();
        upstream.destroy();
        markDropped();
        return;
      }
      client.write(chunk);
    });
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut).on('end', cut);
    upstream.on('error', cut).on('end', cut);
  });
  return new Promise((resolve, reject) => {
    server
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        resolve({
          url: `http://127.0.0.1:${port}`,
          dropped,
          close: () =>
            new Promise((res) => {
              for (const s of sockets) s.destroy();
              server.close(() => res());
            }),
        });
      })
      .on('error', reject);
  });
}
