/**
 * The environment's price proxy, run as its own process (components.ts startPriceProxy): a fault proxy in
 * front of moto whose bridge serves seeded prices (price-bridge.ts). Arguments: moto's URL, the port.
 */
import { startFaultProxy } from "./fault-proxy.ts";
import { PriceBridge } from "./price-bridge.ts";

const [target, port] = process.argv.slice(2);
if (target === undefined || port === undefined) {
  process.stderr.write("usage: price-proxy-main.ts <moto url> <port>\n");
  process.exit(2);
}
const proxy = await startFaultProxy(target, Number(port));
proxy.bridge = new PriceBridge();
process.stdout.write(`price proxy ${proxy.url} in front of ${target}\n`);
process.on("SIGTERM", () => {
  void proxy.stop().then(() => process.exit(0));
});
