/**
 * The operator's catalog discovery cost (issue 20): what the operator's Ec2CatalogProvider spends asking AWS for
 * the region's instance types, offerings and zones, spot prices and on-demand prices, at start and per refresh,
 * against moto behind the test environment's price proxy (moto's DescribeInstanceTypes, offerings and zones;
 * seeded spot prices and a Pricing API from test/harness/price-bridge.ts). Per part and region: wall time,
 * AWS calls, and the catalog built (types, offerings). Wall times on moto are moto's (Python) more than AWS's;
 * moto answers DescribeInstanceTypes in one page where AWS pages at 100 (14 calls for us-east-1's 1,3xx types).
 * Offerings count once prices are in (the parts run in order, from a cold start without bundled data).
 * Usage: node test/perf/operator/discovery.bench.ts [--regions us-east-1,eu-west-1] [--rounds 3]
 */
import { parseArgs } from "node:util";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { pricingApiRegion } from "../../../policies/domain/catalog/prices.ts";
import { Ec2CatalogProvider } from "../../../operator/adapters/aws/providers/catalog.ts";
import { awsEc2CatalogApi, awsPricingApi } from "../../../operator/adapters/aws/sdk.ts";
import { startEnvironment } from "../../harness/environment.ts";
import { startFaultProxy } from "../../harness/fault-proxy.ts";

const { values } = parseArgs({
  options: { regions: { type: "string", default: "us-east-1,eu-west-1" }, rounds: { type: "string", default: "3" } },
});
const regions = values.regions.split(",").filter((r) => r !== "");
const rounds = Math.max(1, Number(values.rounds));

/** Runs one refresh `rounds` times: the wall time of each and the AWS calls of the last. */
async function measure(refresh: () => Promise<void>): Promise<{ calls: number; times: number[] }> {
  const times: number[] = [];
  let calls = 0;
  for (let round = 0; round < rounds; round++) {
    const before = proxy.actions.length;
    const started = performance.now();
    await refresh();
    times.push(performance.now() - started);
    calls = proxy.actions.length - before;
  }
  return { calls, times };
}

const env = await startEnvironment({ moto: true });
const proxy = await startFaultProxy(env.state.awsEndpoint ?? "");
const credentials = { accessKeyId: "testing", secretAccessKey: "testing" };
try {
  console.log(`environment: ${env.describe()}`);
  console.log("| region | part | calls | first ms | median refresh ms | types | offerings |");
  console.log("|---|---|---|---|---|---|---|");
  for (const region of regions) {
    const aws = { region, endpoint: proxy.url, credentials };
    const catalog = new Ec2CatalogProvider({
      region,
      ec2: awsEc2CatalogApi(aws),
      pricing: awsPricingApi(aws, pricingApiRegion(region)),
      clock: { now: () => new Date() },
      bundled: undefined,
      reference: builtinCatalog(),
    });
    const parts = [
      ["instanceTypes", () => catalog.refreshInstanceTypes()],
      ["spotPrices", () => catalog.refreshSpotPrices()],
      ["onDemandPrices", () => catalog.refreshOnDemandPrices()],
    ] as const;
    for (const [part, refresh] of parts) {
      const { calls, times } = await measure(refresh);
      const built = catalog.current();
      const offerings = toInstanceTypes(built).reduce((n, t) => n + t.offerings.length, 0);
      const rest = times.slice(1).sort((x, y) => x - y);
      const median = rest.length === 0 ? (times[0] ?? 0) : (rest[Math.floor(rest.length / 2)] ?? 0);
      console.log(
        `| ${region} | ${part} | ${calls} | ${(times[0] ?? 0).toFixed(0)} | ${median.toFixed(0)} | ` +
          `${built.instanceTypes.length} | ${offerings} |`,
      );
      const benchResult = {
        bench: "catalog-discovery",
        region,
        part,
        calls,
        firstMs: Math.round(times[0] ?? 0),
        medianMs: Math.round(median),
        types: built.instanceTypes.length,
        offerings,
      };
      console.log(`BENCH_RESULT ${JSON.stringify(benchResult)}`);
    }
  }
} finally {
  await proxy.stop();
  await env.stop();
}
