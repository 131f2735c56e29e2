/**
 * A real TCP proxy in front of a database server, for fault tests: `cut()` refuses new
 * connections and resets the open ones (the server gone), `restore()` listens again on the same
 * port; `stall()` drops every byte both ways while the sockets stay open (no FIN, no RST: a
 * network that stopped carrying anything), `heal()` lets bytes flow again; `watch(fn)` sees every
 * chunk the client sends (to cut at a chosen statement). The proxy listens on a free port.
 */
import net from 'node:net';

export type TcpProxy = {
  port: number;
  /** `target` with its host and port replaced by the proxy's. */
  url(target: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stall(): void;
  heal(): void;
  /** Calls `fn` with every chunk a client sends to the server (`undefined`: stop watching). */
  watch(fn: ((chunk: Buffer) => void) | undefined): void;
  close(): Promise<void>;
};

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let stalled = false;
  let onClientData: ((chunk: Buffer) => void) | undefined;
  const makeServer = () =>
    net.createServer((client) => {
      const upstream = net.connect(target);
      sockets.add(client);
      sockets.add(upstream);
      client.on('data', (chunk) => {
        onClientData?.(chunk);
        if (!stalled && !upstream.destroyed) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (!stalled && !client.destroyed) client.write(chunk);
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
  let server: net.Server | null = makeServer();
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    await new Promise<void>((r) => {
      s.close(() => r());
      for (const socket of sockets) socket.resetAndDestroy();
    });
  };
  return {
    port,
    url(t) {
      const u = new URL(t);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: stop,
    async restore() {
      if (server) return;
      server = makeServer();
      await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    },
    stall() {
      stalled = true;
    },
    heal() {
      stalled = false;
    },
    watch(fn) {
      onClientData = fn;
    },
    close: stop,
  };
}
