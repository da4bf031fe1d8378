import { createServer, connect, type Server, type Socket } from 'node:net'
import { freePort } from './smtp-sink.js'

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, to simulate it going away and coming
 * back: `down()` drops every connection and refuses new ones; `up()` accepts again.
 */
export class TcpProxy {
  private server: Server | undefined
  private sockets = new Set<Socket>()
  port = 0

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

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost)
      for (const s of [client, upstream]) {
        this.sockets.add(s)
        s.on('close', () => this.sockets.delete(s))
        s.on('error', () => s.destroy())
      }
      client.pipe(upstream).pipe(client)
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
