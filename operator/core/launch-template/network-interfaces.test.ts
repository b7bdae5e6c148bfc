import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { networkInterfaces } from "./network-interfaces.ts";

const GROUPS = ["sg-2", "sg-1"];

void describe("launch-template network interfaces", () => {
  void it("should declare none for an IPv4 cluster without EFA or a public-IP choice, leaving the groups on the template", () => {
    assert.equal(networkInterfaces({ efaCount: 0, ipv6: false, securityGroupIds: GROUPS }), undefined);
  });

  void it("should attach one EFA interface per network card, card 0 at device index 0 and the others at 1", () => {
    assert.deepEqual(
      networkInterfaces({ efaCount: 3, ipv6: false, securityGroupIds: GROUPS }),
      [0, 1, 2].map((i) => ({
        networkCardIndex: i,
        deviceIndex: i === 0 ? 0 : 1,
        interfaceType: "efa",
        groups: ["sg-1", "sg-2"],
        associatePublicIPAddress: undefined,
      })),
    );
  });

  void it("should give every interface a primary IPv6 address in an IPv6 cluster", () => {
    assert.deepEqual(networkInterfaces({ efaCount: 0, ipv6: true, securityGroupIds: GROUPS }), [
      {
        deviceIndex: 0,
        groups: ["sg-1", "sg-2"],
        associatePublicIPAddress: undefined,
        primaryIpv6: true,
        ipv6AddressCount: 1,
      },
    ]);
    const efa = networkInterfaces({ efaCount: 2, ipv6: true, securityGroupIds: GROUPS }) ?? [];
    assert.deepEqual(
      efa.map((n) => [n.interfaceType, n.primaryIpv6, n.ipv6AddressCount]),
      [
        ["efa", true, 1],
        ["efa", true, 1],
      ],
    );
  });

  void it("should declare the interface that carries spec.associatePublicIPAddress", () => {
    assert.deepEqual(
      networkInterfaces({ efaCount: 0, ipv6: false, securityGroupIds: GROUPS, associatePublicIPAddress: false }),
      [{ deviceIndex: 0, groups: ["sg-1", "sg-2"], associatePublicIPAddress: false }],
    );
  });
});
