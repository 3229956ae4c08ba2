import { readFile } from 'node:fs/promises';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import type { SimCamera } from '../../drivers/camera/sim.js';
import type { Projector } from '../../drivers/projector/projector.js';
import type { EventBus } from '../bus.js';
import { ErrorCode, LampError, formatCode, isLampError } from '../errors.js';
import type { LampEvents } from '../events.js';
import type { Component } from '../lifecycle.js';
import type { Logger } from '../log.js';
import { projectRoot } from '../paths.js';
import type { TurnPipeline } from '../turn/pipeline.js';
import { requestToken, tokenMatches } from './auth.js';
import { API_VERSION, type ServerMessage, parseClientMessage } from './protocol.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string;
  deviceId: string;
  simulatorPage: boolean;
  maxClients: number;
  maxMessageBytes: number;
  maxUploadBytes: number;
  /** A client whose unsent data passes this is dropped instead of growing memory. */
  maxBufferedBytes?: number;
  pipeline: TurnPipeline;
  bus: EventBus<LampEvents>;
  projector?: Projector;
  camera?: SimCamera;
  /** Presses the push-to-talk button (undefined when the lamp has none). */
  pressButton?: () => void;
  health: () => Record<string, unknown>;
  log: Logger;
}

const MAX_TURNS_PER_CLIENT = 4;

const PAGE_FILES: Record<string, string> = {
  '/': 'index.html',
  '/page.js': 'page.js',
  '/page.css': 'page.css',
};

const MIME: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

function isLoopbackHost(host: string | undefined): boolean {
  const name = (host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || name === '127.0.0.1' || name === '::1';
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { error: { code: formatCode(code as never), message } });
}

/**
 * The local HTTP server: the simulator page, /healthz, the camera upload that stands for the
 * camera, and the authenticated WebSocket API at /ws.
 */
export class HttpServer implements Component {
  readonly name = 'http';
  readonly dependsOn = ['pipeline'];
  private server: Server | undefined;
  private wss: WebSocketServer | undefined;
  private readonly clients = new Set<WebSocket>();
  private readonly inFlight = new WeakMap<WebSocket, number>();
  private readonly unsubscribe: (() => void)[] = [];
  dropped = 0;

  constructor(private readonly opts: HttpServerOptions) {}

  get address(): { host: string; port: number } {
    const a = this.server?.address();
    if (!a || typeof a === 'string') throw new Error('server not listening');
    return { host: a.address, port: a.port };
  }

  async start(): Promise<void> {
    const { opts } = this;
    this.wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageBytes });
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        opts.log.error({ err }, 'http handler failed');
        if (!res.headersSent) sendError(res, 500, ErrorCode.API_BAD_MESSAGE, 'internal error');
        else res.destroy();
      });
    });
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void =>
        reject(new LampError(ErrorCode.HTTP_LISTEN_FAILED, `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}; set LAMP_HTTP_PORT to a free port`, { host: opts.host, port: opts.port }));
      this.server?.once('error', onError);
      this.server?.listen(opts.port, opts.host, () => {
        this.server?.off('error', onError);
        resolve();
      });
    });
    if (opts.projector) this.unsubscribe.push(opts.projector.onChange((card) => this.broadcast({ v: API_VERSION, type: 'card', card: card ?? null })));
    this.opts.bus.on('http', 'speech', ({ traceId, text }) => this.broadcast({ v: API_VERSION, type: 'speech', trace_id: traceId, text }));
    this.opts.bus.on('http', 'voice.state', ({ state }) => this.broadcast({ v: API_VERSION, type: 'voice', state }));
    this.opts.bus.on('http', 'voice.partial', ({ text, final }) => this.broadcast({ v: API_VERSION, type: 'voice', partial: text, final: final === true }));
    this.opts.bus.on('http', 'turn.completed', ({ envelope, source }) => {
      this.broadcast({ v: API_VERSION, type: 'state', scene: envelope.scene, phase: envelope.phase, trace_id: envelope.trace_id });
      // Turns that did not come through this server (the microphone) still reach every screen.
      if (source === 'microphone' || source === 'voice' || source === 'camera' || source === 'cloud') this.broadcast({ v: API_VERSION, type: 'response', envelope });
    });
    opts.log.info({ url: `http://${this.address.host}:${this.address.port}/` }, 'http listening');
  }

  async stop(): Promise<void> {
    this.opts.bus.stop('http');
    for (const off of this.unsubscribe.splice(0)) off();
    for (const ws of this.clients) ws.close(1001, 'lamp stopping');
    // A client that does not answer the close handshake must not hold the stop up.
    await new Promise((r) => setTimeout(r, this.clients.size ? 200 : 0));
    for (const ws of this.clients) ws.terminate();
    this.wss?.close();
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  health(): Record<string, unknown> {
    return { clients: this.clients.size, droppedSlowClients: this.dropped, port: this.server ? this.address.port : null };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://lamp');
    } catch {
      sendError(res, 400, ErrorCode.API_BAD_MESSAGE, 'bad request');
      return;
    }
    if (req.method === 'GET' && url.pathname === '/healthz') {
      const health = this.opts.health();
      sendJson(res, health.status === 'ok' ? 200 : 503, health);
      return;
    }
    const page = PAGE_FILES[url.pathname];
    if (req.method === 'GET' && page && this.opts.simulatorPage) {
      // The page carries the API token: only for a browser on this machine that asked for this
      // machine by name (a loopback address and Host header, so DNS rebinding gets nothing).
      if (!isLoopback(req.socket.remoteAddress) || !isLoopbackHost(req.headers.host)) {
        sendError(res, 403, ErrorCode.API_UNAUTHORIZED, 'the simulator page is served to this machine only');
        return;
      }
      await this.servePage(res, page);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/api/camera') {
      await this.cameraUpload(req, res);
      return;
    }
    sendError(res, 404, ErrorCode.API_BAD_MESSAGE, 'not found');
  }

  private async servePage(res: ServerResponse, file: string): Promise<void> {
    let body = await readFile(path.join(projectRoot(), 'runtime', 'http', 'page', file), 'utf8');
    // The simulator page is served on loopback to whoever runs the lamp; it carries the token
    // so it can open the authenticated WebSocket like any other client.
    if (file === 'index.html') body = body.replace('__LAMP_TOKEN__', () => escapeHtml(this.opts.token)).replace('__LAMP_DEVICE__', () => escapeHtml(this.opts.deviceId));
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'text/plain', 'cache-control': 'no-store' });
    res.end(body);
  }

  private async cameraUpload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!tokenMatches(requestToken(req), this.opts.token)) {
      sendError(res, 401, ErrorCode.API_UNAUTHORIZED, 'missing or wrong token');
      req.resume();
      return;
    }
    const camera = this.opts.camera;
    if (!camera) {
      sendError(res, 409, ErrorCode.DRIVER_UNAVAILABLE, 'uploads stand for the simulated camera, which is not configured');
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.opts.maxUploadBytes) {
      sendError(res, 413, ErrorCode.API_TOO_LARGE, `image larger than ${this.opts.maxUploadBytes} bytes`);
      req.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.opts.maxUploadBytes) {
        sendError(res, 413, ErrorCode.API_TOO_LARGE, `image larger than ${this.opts.maxUploadBytes} bytes`);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    }
    try {
      camera.show(Buffer.concat(chunks), 'simulator page');
    } catch (err) {
      if (isLampError(err)) {
        sendError(res, 415, err.code, err.message);
        return;
      }
      throw err;
    }
    const envelope = await this.opts.pipeline.handle({ type: 'image', source: 'simulator page' });
    this.broadcast({ v: API_VERSION, type: 'response', envelope });
    sendJson(res, 200, envelope);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://lamp');
    } catch {
      return refuse(400, 'Bad Request');
    }
    if (url.pathname !== '/ws') return refuse(404, 'Not Found');
    if (!tokenMatches(requestToken(req), this.opts.token)) {
      this.opts.log.warn({ remote: req.socket.remoteAddress }, 'websocket refused: bad token');
      return refuse(401, 'Unauthorized');
    }
    if (this.clients.size >= this.opts.maxClients) {
      this.opts.log.warn({ clients: this.clients.size }, 'websocket refused: too many clients');
      return refuse(503, 'Service Unavailable');
    }
    this.wss?.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    this.clients.add(ws);
    ws.on('close', () => this.clients.delete(ws));
    ws.on('error', (err) => this.opts.log.warn({ err: err.message }, 'websocket client error'));
    this.send(ws, { v: API_VERSION, type: 'hello', device_id: this.opts.deviceId, card: this.opts.projector?.current ?? null });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.send(ws, { v: API_VERSION, type: 'error', code: formatCode(ErrorCode.API_BAD_MESSAGE), message: 'binary frames are not part of the API' });
        return;
      }
      const parsed = parseClientMessage(String(data));
      if (!parsed.ok) {
        this.opts.log.warn({ reason: parsed.message }, 'websocket message rejected');
        this.send(ws, { v: API_VERSION, type: 'error', code: formatCode(ErrorCode.API_BAD_MESSAGE), message: parsed.message });
        return;
      }
      const msg = parsed.message;
      if (msg.type === 'ping') {
        this.send(ws, { v: API_VERSION, type: 'pong', id: msg.id });
        return;
      }
      if (msg.type === 'button') {
        if (this.opts.pressButton) this.opts.pressButton();
        else this.send(ws, { v: API_VERSION, type: 'error', id: msg.id, code: formatCode(ErrorCode.DRIVER_UNAVAILABLE), message: 'no push-to-talk button is configured' });
        return;
      }
      if (msg.type === 'image' && !this.opts.camera) {
        this.send(ws, { v: API_VERSION, type: 'error', id: msg.id, code: formatCode(ErrorCode.DRIVER_UNAVAILABLE), message: 'no camera is configured' });
        return;
      }
      // One client cannot fill the lamp's turn queue: a few turns in flight each, then "wait".
      const inFlight = this.inFlight.get(ws) ?? 0;
      if (inFlight >= MAX_TURNS_PER_CLIENT) {
        this.send(ws, { v: API_VERSION, type: 'error', id: msg.id, code: formatCode(ErrorCode.INPUT_REJECTED), message: `at most ${MAX_TURNS_PER_CLIENT} turns at a time; wait for a reply` });
        return;
      }
      this.inFlight.set(ws, inFlight + 1);
      const input = msg.type === 'image' ? ({ type: 'image', source: 'websocket' } as const) : ({ type: 'utterance', text: msg.text, source: 'websocket' } as const);
      void this.opts.pipeline
        .handle(input)
        .finally(() => this.inFlight.set(ws, (this.inFlight.get(ws) ?? 1) - 1))
        .then((envelope) => {
          this.send(ws, { v: API_VERSION, type: 'response', id: msg.id, envelope });
          this.broadcast({ v: API_VERSION, type: 'response', envelope }, ws);
        })
        .catch((err: unknown) => {
          this.opts.log.error({ err }, 'turn failed');
          const code = isLampError(err) ? formatCode(err.code) : formatCode(ErrorCode.SCENE_STEP_FAILED);
          this.send(ws, { v: API_VERSION, type: 'error', id: msg.id, code, message: '出了点小问题，我们再试一次好吗？' });
        });
    });
  }

  private broadcast(msg: ServerMessage, except?: WebSocket): void {
    for (const ws of this.clients) if (ws !== except) this.send(ws, msg);
  }

  /** Sends to one client; a client that does not read (buffer over the limit) is dropped. */
  private send(ws: WebSocket, msg: ServerMessage): void {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > (this.opts.maxBufferedBytes ?? 1_048_576)) {
      this.dropped++;
      this.opts.log.warn({ buffered: ws.bufferedAmount }, 'slow websocket client dropped');
      ws.terminate();
      this.clients.delete(ws);
      return;
    }
    ws.send(JSON.stringify(msg));
  }
}
