/**
 * Capacity reservations: data moto cannot serve. moto 5.2.3 implements no capacity reservations
 * (CreateCapacityReservation answers 500), so this bridge on the fault proxy (fault-proxy.ts) plays
 * EC2's part for them, and only them:
 *
 * - DescribeCapacityReservations: answered from the reservations a test seeds, filtered by id, state,
 *   owner-id, instance-match-criteria, tag:<key> and tag-key as EC2 does, in EC2's XML.
 * - CreateLaunchTemplate: remembers which template targets which reservation (its
 *   CapacityReservationSpecification), by the id moto gives the template.
 * - CreateFleet: an instance launched from such a template runs in that reservation (one fewer available, taken
 *   as the request goes on to moto, so concurrent fleets cannot share the last one); into a reservation with none
 *   left it fails with ReservationCapacityExceeded, as EC2's instant fleet answers.
 * - DescribeInstances: such an instance reports capacityReservationId and the capacity-reservations-only
 *   preference, as EC2 reports an instance launched into a reservation.
 *
 * Everything else (the instances themselves, subnets, images, templates) is moto's.
 */
import type { BridgedAnswer, BridgedRequest, MotoBridge } from "./fault-proxy.ts";

const EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/";

/** A reservation a test seeds. */
export interface SeededReservation {
  readonly id: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly ownerId?: string;
  readonly instanceMatchCriteria?: "open" | "targeted";
  readonly reservationType?: "default" | "capacity-block";
  readonly totalInstanceCount: number;
  availableInstanceCount: number;
  readonly tags?: Readonly<Record<string, string>>;
  readonly endDate?: Date;
}

function xml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function list(form: URLSearchParams, name: string): string[] {
  const out: string[] = [];
  for (let i = 1; form.has(`${name}.${i}`); i++) out.push(form.get(`${name}.${i}`) ?? "");
  return out;
}

function matches(r: SeededReservation, name: string, values: readonly string[]): boolean {
  if (name === "state") return values.includes("active");
  if (name === "owner-id") return values.includes(r.ownerId ?? "012345678901");
  if (name === "instance-match-criteria") return values.includes(r.instanceMatchCriteria ?? "targeted");
  if (name === "tag-key") return values.some((k) => r.tags?.[k] !== undefined);
  if (name.startsWith("tag:")) return values.includes(r.tags?.[name.slice(4)] ?? "\u0000");
  return true;
}

function reservationXml(r: SeededReservation): string {
  const tags = Object.entries(r.tags ?? {})
    .map(([k, v]) => `<item><key>${xml(k)}</key><value>${xml(v)}</value></item>`)
    .join("");
  return (
    `<item><capacityReservationId>${r.id}</capacityReservationId><ownerId>${r.ownerId ?? "012345678901"}</ownerId>` +
    `<instanceType>${r.instanceType}</instanceType><instancePlatform>Linux/UNIX</instancePlatform>` +
    `<availabilityZone>${r.availabilityZone}</availabilityZone>` +
    `<tenancy>default</tenancy><totalInstanceCount>${r.totalInstanceCount}</totalInstanceCount>` +
    `<availableInstanceCount>${r.availableInstanceCount}</availableInstanceCount>` +
    `<state>active</state>` +
    `<instanceMatchCriteria>${r.instanceMatchCriteria ?? "targeted"}</instanceMatchCriteria>` +
    `<endDateType>${r.endDate === undefined ? "unlimited" : "limited"}</endDateType>` +
    (r.endDate === undefined ? "" : `<endDate>${r.endDate.toISOString()}</endDate>`) +
    (r.reservationType === undefined ? "" : `<reservationType>${r.reservationType}</reservationType>`) +
    `<tagSet>${tags}</tagSet></item>`
  );
}

/** The bridge; `reservations` may be changed by the test between calls. */
export class ReservationBridge implements MotoBridge {
  readonly reservations: SeededReservation[] = [];
  /** Launch template id → the reservation it targets. */
  private readonly templates = new Map<string, string>();
  /** Instance id → the reservation it runs in. */
  readonly instances = new Map<string, string>();
  /** DescribeCapacityReservations calls answered. */
  describeCalls = 0;

  intercept(request: BridgedRequest): BridgedAnswer | undefined {
    if (request.action === "CreateFleet" && request.form !== undefined) return this.full(request.form);
    if (request.action !== "DescribeCapacityReservations" || request.form === undefined) return undefined;
    this.describeCalls++;
    const form = request.form;
    const ids = list(form, "CapacityReservationId");
    const filters: [string, string[]][] = [];
    for (let i = 1; form.has(`Filter.${i}.Name`); i++)
      filters.push([form.get(`Filter.${i}.Name`) ?? "", list(form, `Filter.${i}.Value`)]);
    const found = this.reservations.filter(
      (r) => (ids.length === 0 || ids.includes(r.id)) && filters.every(([n, v]) => matches(r, n, v)),
    );
    if (ids.length > 0 && found.length === 0) {
      const body =
        `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>` +
        `<Code>InvalidCapacityReservationId.NotFound</Code>` +
        `<Message>The capacity reservation '${xml(ids.join(","))}' does not exist.</Message></Error></Errors>` +
        `<RequestID>kerf-reservation-bridge</RequestID></Response>`;
      return { status: 400, contentType: "text/xml", body };
    }
    const body =
      `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeCapacityReservationsResponse xmlns="${EC2_NS}">` +
      `<requestId>kerf-reservation-bridge</requestId>` +
      `<capacityReservationSet>${found.map(reservationXml).join("")}</capacityReservationSet>` +
      `</DescribeCapacityReservationsResponse>`;
    return { status: 200, contentType: "text/xml", body };
  }

  /**
   * A CreateFleet into a reservation with no instance left fails as EC2 fails it: an instant fleet answers 200
   * with ReservationCapacityExceeded in its errorSet and launches nothing.
   */
  private full(form: URLSearchParams): BridgedAnswer | undefined {
    const reservation = this.templates.get(
      form.get("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId") ?? "",
    );
    const r = this.reservations.find((x) => x.id === reservation);
    if (r === undefined || r.availableInstanceCount > 0) return undefined;
    const at = (name: string): string => xml(form.get(`LaunchTemplateConfigs.1.Overrides.1.${name}`) ?? "");
    const item =
      "<item><launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateId>" +
      `${xml(form.get("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId") ?? "")}` +
      `</launchTemplateId><version>1</version></launchTemplateSpecification><overrides>` +
      `<instanceType>${at("InstanceType")}</instanceType>` +
      `<subnetId>${at("SubnetId")}</subnetId>` +
      `<availabilityZone>${at("AvailabilityZone")}</availabilityZone></overrides>` +
      "</launchTemplateAndOverrides><errorCode>ReservationCapacityExceeded</errorCode>" +
      `<errorMessage>Insufficient capacity in capacity reservation ${xml(r.id)}.</errorMessage></item>`;
    const body =
      `<?xml version="1.0" encoding="UTF-8"?>\n` +
      `<CreateFleetResponse xmlns="${EC2_NS}"><requestId>kerf-reservation-bridge` +
      "</requestId><fleetId>fleet-00000000-0000-0000-0000-000000000001</fleetId>" +
      `<errorSet>${item}</errorSet><fleetInstanceSet/></CreateFleetResponse>`;
    return { status: 200, contentType: "text/xml", body };
  }

  /**
   * Takes the slot of a CreateFleet into a reservation with room as it goes on to moto: after the proxy's own
   * faults and crash points (which answer without moto, and would leave a slot taken), with nothing awaited since
   * full() let it through, so two fleets in flight at once cannot both have the last one, as EC2 admits launches
   * into a reservation one at a time. reply() settles it against what moto launched (a fleet moto answers with an
   * error status keeps its slot: no test here makes moto refuse one).
   */
  rewrite(request: BridgedRequest & { readonly form: URLSearchParams }): URLSearchParams | undefined {
    if (request.action !== "CreateFleet") return undefined;
    const lt = request.form.get("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId") ?? "";
    const r = this.reservations.find((x) => x.id === this.templates.get(lt));
    if (r !== undefined && r.availableInstanceCount > 0) r.availableInstanceCount--;
    return undefined;
  }

  reply(request: BridgedRequest & { readonly form: URLSearchParams }, body: string): string | undefined {
    const form = request.form;
    if (request.action === "CreateLaunchTemplate") {
      const target = form.get(
        "LaunchTemplateData.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId",
      );
      const id = /<launchTemplateId>([^<]+)<\/launchTemplateId>/.exec(body)?.[1];
      if (target !== null && id !== undefined) this.templates.set(id, target);
      return undefined;
    }
    if (request.action === "CreateFleet") {
      const lt = form.get("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateId") ?? "";
      const reservation = this.templates.get(lt);
      if (reservation === undefined) return undefined;
      const launched = [...body.matchAll(/<instanceIds>\s*<item>([^<]+)<\/item>/g)].map(([, id]) => id!);
      for (const id of launched) this.instances.set(id, reservation);
      // rewrite() took one slot as the fleet went on to moto; settle it against what moto launched.
      const r = this.reservations.find((x) => x.id === reservation);
      if (r !== undefined) r.availableInstanceCount = Math.max(0, r.availableInstanceCount + 1 - launched.length);
      return undefined;
    }
    if (request.action === "DescribeInstances" && this.instances.size > 0) {
      return body.replace(/<instanceId>(i-[0-9a-f]+)<\/instanceId>/g, (all, id: string) => {
        const reservation = this.instances.get(id);
        if (reservation === undefined) return all;
        return (
          `${all}<capacityReservationId>${reservation}</capacityReservationId>` +
          "<capacityReservationSpecification>" +
          "<capacityReservationPreference>capacity-reservations-only</capacityReservationPreference>" +
          "</capacityReservationSpecification>"
        );
      });
    }
    return undefined;
  }
}
