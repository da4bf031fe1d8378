import { createServer, connect, type Server, type Socket } from 'node:net'
import { Transform } from 'node:stream'
import { freePort } from './smtp-sink.js'

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, to simulate it going away and coming
 * back: `down()` drops every connection and refuses new ones; `up()` accepts again.
 */
export class TcpProxy {
  private server: Server | undefined
  private sockets = new Set<Socket>()
  port = 0
  /**
   * Sees, and may change, each chunk a client sends before it goes on: to act at a precise step
   * of a protocol, or to spoil one statement (keep its length: the message's is in its header).
   */
  fromClient: ((chunk: Buffer) => Buffer) | undefined

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort)
    proxy.port = await freePort()
    await proxy.up()
    return proxy
  }

  /** A proxy in front of the server of this postgres:// URL, and the URL that goes through it. */
  static async inFrontOf(url: string): Promise<{ proxy: TcpProxy; url: string }> {
    const through = new URL(url)
    const proxy = await TcpProxy.start(through.hostname, Number(through.port || 5432))
    through.port = String(proxy.port)
    return { proxy, url: through.toString() }
  }

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost)
      for (const s of [client, upstream]) {
        this.sockets.add(s)
        s.on('close', () => this.sockets.delete(s))
        s.on('error', () => s.destroy())
      }
      const seen = new Transform({ transform: (chunk: Buffer, _encoding, done) => done(null, this.fromClient ? this.fromClient(chunk) : chunk) })
      client.pipe(seen).pipe(upstream).pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve))
    this.server = server
  }

  async down(): Promise<void> {
    const server = this.server
    this.server = undefined
    for (const s of this.sockets) s.destroy()
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
