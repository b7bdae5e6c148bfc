/** hostPort bookkeeping per node: `<hostIP, port, protocol>`; 0.0.0.0 and :: conflict with every IP. */
import type { HostPort } from "./types.ts";

const WILDCARDS = new Set(["0.0.0.0", "::", ""]);

export class HostPorts {
  private readonly used = new Map<string, string[]>();

  /** The first of `ports` that conflicts with one already taken, or undefined. */
  conflict(ports: readonly HostPort[]): HostPort | undefined {
    for (const p of ports) {
      const ips = this.used.get(`${p.protocol}/${p.port}`);
      if (ips === undefined) continue;
      if (WILDCARDS.has(p.hostIP) || ips.some((ip) => ip === p.hostIP || WILDCARDS.has(ip))) return p;
    }
    return undefined;
  }

  add(ports: readonly HostPort[]): void {
    for (const p of ports) {
      const key = `${p.protocol}/${p.port}`;
      this.used.set(key, [...(this.used.get(key) ?? []), p.hostIP]);
    }
  }
}
