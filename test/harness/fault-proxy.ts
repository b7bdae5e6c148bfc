/**
 * A small HTTP proxy in front of moto that injects the capacity failures moto never produces.
 * CreateFleet overrides matching a fault are removed from the request and reported back in the
 * response's errorSet (the shape EC2 uses for an instant fleet); when none remain, moto is not
 * called and the response holds only errors. It also records every CreateFleet request, and can
 * play a crash: from the next CreateFleet on it answers nothing at all (holdFromCreateFleet), or
 * answer CreateFleet late, after moto launched the instance (delayCreateFleetResponses). It also
 * throttles: the next N requests of an action get EC2's RequestLimitExceeded without reaching moto.
 * In chaos mode (chaos()) a seeded share of the requests of chosen actions, EC2's Query API and the
 * JSON APIs of SQS and SSM alike, gets a throttling error, a 5xx, or a timeout: the connection is
 * dropped after a wait, either before moto sees the request or after it acted (a lost answer).
 * A bridge (MotoBridge) can fill gaps of moto for every caller alike: it sees every request, may
 * answer one itself and may rewrite a Query API request (after fault injection) before moto sees it.
 */
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { AddressInfo } from "node:net";

/** A (type, zone) pool that has no capacity. */
export interface FleetFault {
  readonly instanceType: string;
  readonly zone: string;
  /** Default InsufficientInstanceCapacity. */
  readonly code?: string;
}

/** One recorded CreateFleet request: its query parameters as sent by the SDK (before stripping). */
export type RecordedRequest = Readonly<Record<string, string>>;

interface Override {
  readonly fields: Map<string, string>;
}

const OVERRIDE = /^LaunchTemplateConfigs\.(\d+)\.Overrides\.(\d+)\.(.+)$/;
const CONFIG = /^LaunchTemplateConfigs\.(\d+)\.(?!Overrides\.)(.+)$/;

function xml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function errorItem(config: Map<string, string>, o: Override, code: string): string {
  const field = (name: string): string =>
    o.fields.has(name)
      ? `<${name[0]?.toLowerCase()}${name.slice(1)}>${xml(o.fields.get(name) ?? "")}` +
        `</${name[0]?.toLowerCase()}${name.slice(1)}>`
      : "";
  return (
    `<item><launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateId>` +
    `${xml(config.get("LaunchTemplateSpecification.LaunchTemplateId") ?? "")}</launchTemplateId>` +
    `<version>1</version></launchTemplateSpecification>` +
    `<overrides>${field("InstanceType")}${field("SubnetId")}${field("AvailabilityZone")}</overrides>` +
    `</launchTemplateAndOverrides>` +
    `<errorCode>${xml(code)}</errorCode><errorMessage>We currently do not have sufficient ` +
    `${xml(o.fields.get("InstanceType") ?? "")} capacity in the Availability Zone you requested ` +
    `(${xml(o.fields.get("AvailabilityZone") ?? "")}).</errorMessage></item>`
  );
}

/** A fault chaos mode injects: throttling, a server error, or a dropped connection before or after moto acted. */
export type ChaosFault = "throttle" | "5xx" | "timeout-before" | "timeout-after";
export const CHAOS_FAULTS: readonly ChaosFault[] = ["throttle", "5xx", "timeout-before", "timeout-after"];

/** Chaos mode: each request of an action `applies` to gets a fault with probability `rate`, drawn from `random`. */
export interface ChaosOptions {
  readonly random: () => number;
  readonly rate: number;
  readonly applies: (action: string) => boolean;
  /** How long a timed-out request waits before its connection is dropped. */
  readonly timeoutMs: number;
}

/** A request as a bridge sees it: its action and parameters in the request's protocol. */
export interface BridgedRequest {
  readonly action: string;
  /** EC2's and IAM's Query API parameters (undefined for the JSON protocols). */
  readonly form?: URLSearchParams;
  /** The JSON protocols' body (SQS, SSM), parsed (undefined for the Query API). */
  readonly json?: unknown;
  /** The region the request is signed for (SigV4 credential scope), when it is signed. */
  readonly region?: string;
}

/** An answer a bridge gives in moto's place. */
export interface BridgedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * Fills what moto cannot serve or does not do, identically for every caller behind the proxy.
 * `intercept` sees every request that passed the fault injection (so it can count them) and answers
 * it in moto's place when it returns an answer; `rewrite` returns the parameters moto gets for a
 * Query API request instead of the caller's (or undefined to leave them).
 */
export interface MotoBridge {
  intercept(request: BridgedRequest): BridgedAnswer | undefined;
  rewrite(request: BridgedRequest & { readonly form: URLSearchParams }): URLSearchParams | undefined;
  /**
   * Optional: sees moto's answer to a Query API request (as moto got it) and returns the body the caller
   * gets instead (undefined to leave it), for state moto keeps no field for (reservation-bridge.ts).
   */
  reply?(request: BridgedRequest & { readonly form: URLSearchParams }, body: string): string | undefined;
}

/** Where a crash falls: before CreateFleet reaches moto, or after moto launched but before the caller hears of it. */
export type CrashPoint = "before-create-fleet" | "after-create-fleet";

/** The running proxy. */
export class FaultProxy {
  readonly url: string;
  /** Every CreateFleet request seen, oldest first. */
  readonly createFleetRequests: RecordedRequest[] = [];
  /** The Query API Action of every request seen (DescribeInstances, CreateFleet, …), oldest first. */
  readonly actions: string[] = [];
  /** When each of createFleetRequests arrived (Date.now()), for latency measurements. */
  readonly createFleetTimes: number[] = [];
  private faults: FleetFault[] = [];
  private readonly server: http.Server;
  private hold: { point: CrashPoint; reached: () => void } | undefined;
  /** How long each CreateFleet answer is held back after moto answered (0: not at all). */
  createFleetDelayMs = 0;
  /** While set, CreateFleet answers wait for it after moto answered (gateCreateFleetAnswers). */
  createFleetGate: Promise<void> | undefined;
  /** Requests still to throttle, per Query API Action. */
  private readonly throttles = new Map<string, { left: number; code: string }>();
  /** Answers still to lose, per Query API Action (see loseAnswers). */
  private readonly lost = new Map<string, number>();
  /** Requests answered with a throttling error, per Query API Action. */
  readonly throttled = new Map<string, number>();
  /** Set once the crash point passed: every response from then on is withheld. */
  holding = false;
  private readonly held: http.ServerResponse[] = [];
  private chaosMode: ChaosOptions | undefined;
  /** Faults chaos mode injected, by `fault action` (e.g. "5xx CreateFleet"). */
  readonly injected = new Map<string, number>();
  /** Fills moto's gaps when set (see MotoBridge). */
  bridge: MotoBridge | undefined;

  constructor(server: http.Server) {
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Makes these pools fail until clear(). */
  injectFleetFaults(faults: readonly FleetFault[]): void {
    this.faults = [...faults];
  }

  clear(): void {
    this.faults = [];
    this.throttles.clear();
    this.lost.clear();
    this.throttled.clear();
    this.createFleetRequests.length = 0;
    this.createFleetTimes.length = 0;
    this.actions.length = 0;
    this.createFleetDelayMs = 0;
    this.createFleetGate = undefined;
  }

  /**
   * Plays a crash of the caller at `point` of its next CreateFleet: from then on no request gets an
   * answer (the caller's SDK calls hang, as a dead process's would end), so nothing after that
   * point reaches the cluster. Resolves when the point is reached; stop() drops the held requests.
   */
  holdFromCreateFleet(point: CrashPoint): Promise<void> {
    return new Promise((resolve) => {
      this.hold = {
        point,
        reached: () => {
          this.holding = true;
          resolve();
        },
      };
    });
  }

  /**
   * Answers every CreateFleet `ms` after moto did: the instance exists while the caller still waits,
   * as with a slow EC2 answer, which widens the window between a launch and the caller recording it.
   */
  delayCreateFleetResponses(ms: number): void {
    this.createFleetDelayMs = ms;
  }

  /**
   * Holds every CreateFleet answer, after moto launched, until the returned function is called: the callers
   * wait as long as a test needs, e.g. until a second launch has reached EC2 while the first is in flight.
   */
  gateCreateFleetAnswers(): () => void {
    let open = (): void => undefined;
    this.createFleetGate = new Promise<void>((resolve) => {
      open = () => {
        this.createFleetGate = undefined;
        resolve();
      };
    });
    return open;
  }

  /**
   * Answers the next `times` requests of `action` (CreateFleet, TerminateInstances, …) with HTTP 503
   * and the EC2 error `code`, as EC2 does when it throttles: moto never sees them.
   */
  throttle(action: string, times: number, code = "RequestLimitExceeded"): void {
    this.throttles.set(action, { left: times, code });
  }

  /**
   * Lets the next `times` requests of `action` reach moto, then answers them with HTTP 500 InternalError
   * instead of moto's answer: EC2 acted, the caller never hears of it (a lost answer).
   */
  loseAnswers(action: string, times: number): void {
    this.lost.set(action, times);
  }

  /** Whether this request's answer is to be lost (and counts it down). */
  takeLostAnswer(action: string): boolean {
    const left = this.lost.get(action) ?? 0;
    if (left <= 0) return false;
    this.lost.set(action, left - 1);
    return true;
  }

  /** The throttling error code when this request of `action` is to be throttled (and counts it). */
  takeThrottle(action: string): string | undefined {
    const t = this.throttles.get(action);
    if (t === undefined || t.left <= 0) return undefined;
    t.left -= 1;
    this.throttled.set(action, (this.throttled.get(action) ?? 0) + 1);
    return t.code;
  }

  /** Starts chaos mode (see ChaosOptions); calm() ends it. Counts go to `injected`. */
  chaos(options: ChaosOptions): void {
    this.chaosMode = options;
  }

  calm(): void {
    this.chaosMode = undefined;
  }

  /** The chaos fault for this request of `action`, if it gets one (and counts it). */
  takeChaos(action: string): ChaosFault | undefined {
    const c = this.chaosMode;
    if (c === undefined || !c.applies(action) || c.random() >= c.rate) return undefined;
    const fault = CHAOS_FAULTS[Math.floor(c.random() * CHAOS_FAULTS.length)] ?? "5xx";
    const key = `${fault} ${action}`;
    this.injected.set(key, (this.injected.get(key) ?? 0) + 1);
    return fault;
  }

  /** How long a chaos timeout waits before dropping the connection. */
  get chaosTimeoutMs(): number {
    return this.chaosMode?.timeoutMs ?? 0;
  }

  /** Keeps `res` open without answering (see holdFromCreateFleet). */
  withhold(res: http.ServerResponse): void {
    this.held.push(res);
  }

  /** Called by the handler at each crash point of a CreateFleet; true when the response must be withheld. */
  crashAt(point: CrashPoint): boolean {
    if (this.hold?.point !== point) return false;
    const { reached } = this.hold;
    this.hold = undefined;
    reached();
    return true;
  }

  async stop(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Splits the request into kept overrides and faulted ones; returns the rewritten parameters. */
  rewrite(params: URLSearchParams): { params: URLSearchParams; errors: string[]; kept: number } {
    const { configs, overrides, rest } = parseFleetParams(params);
    const errors: string[] = [];
    let configIndex = 0;
    let kept = 0;
    for (const [index, config] of configs) {
      const survivors: Override[] = [];
      for (const o of overrides.get(index)?.values() ?? []) {
        const fault = this.faults.find(
          (f) => f.instanceType === o.fields.get("InstanceType") && f.zone === o.fields.get("AvailabilityZone"),
        );
        if (fault === undefined) survivors.push(o);
        else errors.push(errorItem(config, o, fault.code ?? "InsufficientInstanceCapacity"));
      }
      if (survivors.length === 0) continue;
      configIndex++;
      appendConfig(rest, configIndex, config, survivors);
      kept += survivors.length;
    }
    return { params: rest, errors, kept };
  }
}

function appendConfig(
  out: URLSearchParams,
  index: number,
  config: Map<string, string>,
  overrides: readonly Override[],
): void {
  for (const [k, v] of config) out.append(`LaunchTemplateConfigs.${index}.${k}`, v);
  overrides.forEach((o, i) => {
    for (const [k, v] of o.fields) out.append(`LaunchTemplateConfigs.${index}.Overrides.${i + 1}.${k}`, v);
  });
}

function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const found = map.get(key);
  if (found !== undefined) return found;
  const made = make();
  map.set(key, made);
  return made;
}

/** Groups CreateFleet query parameters into launch-template configs, their overrides and the rest. */
function parseFleetParams(params: URLSearchParams): {
  configs: Map<string, Map<string, string>>;
  overrides: Map<string, Map<string, Override>>;
  rest: URLSearchParams;
} {
  const configs = new Map<string, Map<string, string>>();
  const overrides = new Map<string, Map<string, Override>>();
  const rest = new URLSearchParams();
  for (const [key, value] of params) {
    const o = OVERRIDE.exec(key);
    const c = CONFIG.exec(key);
    if (o !== null)
      entry(
        entry(overrides, o[1] ?? "", () => new Map<string, Override>()),
        o[2] ?? "",
        () => ({ fields: new Map<string, string>() }),
      ).fields.set(o[3] ?? "", value);
    else if (c !== null) entry(configs, c[1] ?? "", () => new Map<string, string>()).set(c[2] ?? "", value);
    else rest.append(key, value);
  }
  return { configs, overrides, rest };
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function forward(
  target: string,
  req: http.IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: Headers; text: string }> {
  // text is replaced when a bridge rewrites moto's answer (MotoBridge.reply).
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === "string" && k !== "content-length" && k !== "host") headers.set(k, v);
  const res = await fetch(`${target}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    ...(body.length > 0 ? { body } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function withErrors(responseXml: string, errors: readonly string[]): string {
  if (errors.length === 0) return responseXml;
  const set = `<errorSet>${errors.join("")}</errorSet>`;
  return responseXml.includes("<fleetInstanceSet")
    ? responseXml.replace("<fleetInstanceSet", `${set}<fleetInstanceSet`)
    : responseXml.replace("</CreateFleetResponse>", `${set}</CreateFleetResponse>`);
}

/** An error answer in the request's protocol: EC2's Query XML, or the JSON of SQS and SSM (x-amz-target set). */
function errorAnswer(res: http.ServerResponse, json: boolean, status: number, code: string): void {
  const message = /Throttl|LimitExceeded/.test(code)
    ? "Rate exceeded (fault proxy)."
    : "An internal error has occurred (fault proxy).";
  if (json) {
    res.writeHead(status, { "content-type": "application/x-amz-json-1.0", "x-amzn-errortype": code });
    res.end(JSON.stringify({ __type: code, message }));
    return;
  }
  res.writeHead(status, { "content-type": "text/xml" });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${xml(code)}</Code>` +
      `<Message>${message}</Message></Error></Errors><RequestID>kerf-fault-proxy</RequestID></Response>`,
  );
}

/** Parses a JSON protocol's body; undefined when there is none or it does not parse (the bridge then sees no body). */
function parseJson(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The bridge's answer to a request, if it gives one. */
function bridgeAnswer(
  proxy: FaultProxy,
  action: string | null | undefined,
  form: URLSearchParams | undefined,
  body: { readonly json: Buffer | undefined; readonly authorization: string | undefined },
): BridgedAnswer | undefined {
  const { json: jsonBody, authorization } = body;
  if (proxy.bridge === undefined || action === undefined || action === null) return undefined;
  const json = parseJson(jsonBody);
  // SigV4: "AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request, …".
  const region = /Credential=[^/]+\/[^/]+\/([^/]+)\//.exec(authorization ?? "")?.[1];
  const request: BridgedRequest = {
    action,
    ...(form === undefined ? {} : { form }),
    ...(region === undefined ? {} : { region }),
  };
  return proxy.bridge.intercept(json === undefined ? request : { ...request, json });
}

/** Plays a chaos fault; true when the request was answered (or dropped) here and must not go on. */
async function playChaos(
  proxy: FaultProxy,
  fault: ChaosFault | undefined,
  json: boolean,
  res: http.ServerResponse,
): Promise<boolean> {
  if (fault === undefined || fault === "timeout-after") return false;
  if (fault === "throttle")
    errorAnswer(res, json, json ? 400 : 503, json ? "ThrottlingException" : "RequestLimitExceeded");
  else if (fault === "5xx") errorAnswer(res, json, 500, json ? "InternalFailure" : "InternalError");
  else await dropAfter(proxy, res);
  return true;
}

/** Waits the chaos timeout, then drops the connection without an answer (the caller sees a reset socket). */
async function dropAfter(proxy: FaultProxy, res: http.ServerResponse): Promise<void> {
  await sleep(proxy.chaosTimeoutMs);
  res.socket?.destroy();
}

async function handle(
  proxy: FaultProxy,
  target: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  let body = await readBody(req);
  if (proxy.holding) {
    proxy.withhold(res);
    return;
  }
  const form = (req.headers["content-type"] ?? "").includes("x-www-form-urlencoded")
    ? new URLSearchParams(body.toString("utf8"))
    : undefined;
  let errors: string[] = [];
  const amzTarget = req.headers["x-amz-target"];
  const json = typeof amzTarget === "string";
  // JSON protocols name the operation in X-Amz-Target ("AmazonSQS.ReceiveMessage"); the Query API in Action.
  const action = json ? amzTarget.slice(amzTarget.indexOf(".") + 1) : form?.get("Action");
  if (action !== undefined && action !== null) proxy.actions.push(action);
  const fault = action === undefined || action === null ? undefined : proxy.takeChaos(action);
  if (await playChaos(proxy, fault, json, res)) return;
  const throttle = action === undefined || action === null ? undefined : proxy.takeThrottle(action);
  if (throttle !== undefined) {
    res.writeHead(503, { "content-type": "text/xml" });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${xml(throttle)}</Code>` +
        `<Message>Request limit exceeded.</Message></Error></Errors>` +
        `<RequestID>kerf-fault-proxy</RequestID></Response>`,
    );
    return;
  }
  const bridged = bridgeAnswer(proxy, action, form, {
    json: json ? body : undefined,
    authorization: req.headers.authorization,
  });
  if (bridged !== undefined) {
    res.writeHead(bridged.status, { "content-type": bridged.contentType });
    res.end(bridged.body);
    return;
  }
  const createFleet = action === "CreateFleet";
  if (createFleet && proxy.crashAt("before-create-fleet")) {
    proxy.withhold(res);
    return;
  }
  if (form !== undefined && createFleet) {
    proxy.createFleetRequests.push(Object.fromEntries(form));
    proxy.createFleetTimes.push(Date.now());
    const rewritten = proxy.rewrite(form);
    errors = rewritten.errors;
    if (rewritten.kept === 0) {
      res.writeHead(200, { "content-type": "text/xml" });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n` +
          `<CreateFleetResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">` +
          `<requestId>kerf-fault-proxy</requestId><fleetId>fleet-00000000-0000-0000-0000-000000000000</fleetId>` +
          `<errorSet>${errors.join("")}</errorSet><fleetInstanceSet/></CreateFleetResponse>`,
      );
      return;
    }
    body = Buffer.from(rewritten.params.toString(), "utf8");
  }
  if (form !== undefined && action !== undefined && action !== null && proxy.bridge !== undefined) {
    const rewritten = proxy.bridge.rewrite({ action, form: new URLSearchParams(body.toString("utf8")) });
    if (rewritten !== undefined) body = Buffer.from(rewritten.toString(), "utf8");
  }
  const out = await forward(target, req, body);
  if (
    form !== undefined &&
    action !== undefined &&
    action !== null &&
    proxy.bridge?.reply !== undefined &&
    out.status < 300
  ) {
    const replaced = proxy.bridge.reply({ action, form: new URLSearchParams(body.toString("utf8")) }, out.text);
    if (replaced !== undefined) out.text = replaced;
  }
  if (fault === "timeout-after") {
    await dropAfter(proxy, res);
    return;
  }
  if (action !== undefined && action !== null && proxy.takeLostAnswer(action)) {
    errorAnswer(res, json, 500, json ? "InternalFailure" : "InternalError");
    return;
  }
  if (createFleet && proxy.crashAt("after-create-fleet")) {
    proxy.withhold(res);
    return;
  }
  if (createFleet && proxy.createFleetDelayMs > 0) await sleep(proxy.createFleetDelayMs);
  if (createFleet && proxy.createFleetGate !== undefined) await proxy.createFleetGate;
  const headers: Record<string, string> = {};
  out.headers.forEach((v, k) => {
    if (k !== "content-length" && k !== "transfer-encoding" && k !== "content-encoding") headers[k] = v;
  });
  res.writeHead(out.status, headers);
  res.end(withErrors(out.text, errors));
}

/** Starts a proxy on a free loopback port in front of `target` (moto's endpoint). */
export async function startFaultProxy(target: string, port = 0): Promise<FaultProxy> {
  const holder: { proxy?: FaultProxy } = {};
  const server = http.createServer((req, res) => {
    handle(holder.proxy as FaultProxy, target, req, res).catch((error: unknown) => {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(`fault proxy: forwarding to ${target}: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  holder.proxy = new FaultProxy(server);
  return holder.proxy;
}
