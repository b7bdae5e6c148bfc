import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ephemeralStorageBytes, type StorageSource } from "./ephemeral-storage.ts";

const GI = 2 ** 30;
const ebs = (
  deviceName: string,
  volumeSize: string,
  rootVolume?: boolean,
): NonNullable<StorageSource["blockDeviceMappings"]>[number] => ({
  deviceName,
  ebs: { volumeSize },
  ...(rootVolume === undefined ? {} : { rootVolume }),
});

void describe("ephemeral-storage capacity as Karpenter computes it", () => {
  const cases: { name: string; source: StorageSource; instanceStoreGB: number; bytes: number }[] = [
    { name: "AL2023's default 20Gi root volume", source: { amiFamily: "AL2023" }, instanceStoreGB: 0, bytes: 20 * GI },
    {
      name: "Windows' default 50Gi /dev/sda1",
      source: { amiFamily: "Windows2022" },
      instanceStoreGB: 0,
      bytes: 50 * GI,
    },
    {
      name: "Bottlerocket's default 20Gi data volume",
      source: { amiFamily: "Bottlerocket" },
      instanceStoreGB: 0,
      bytes: 20 * GI,
    },
    {
      name: "the rootVolume mapping",
      source: { amiFamily: "AL2", blockDeviceMappings: [ebs("/dev/xvdc", "100Gi", true), ebs("/dev/xvda", "30Gi")] },
      instanceStoreGB: 0,
      bytes: 100 * GI,
    },
    {
      name: "the family's ephemeral device without a rootVolume",
      source: { amiFamily: "Bottlerocket", blockDeviceMappings: [ebs("/dev/xvda", "4Gi"), ebs("/dev/xvdb", "80Gi")] },
      instanceStoreGB: 0,
      bytes: 80 * GI,
    },
    {
      name: "the family default when no mapping is its ephemeral device",
      source: { amiFamily: "AL2023", blockDeviceMappings: [ebs("/dev/xvdz", "80Gi")] },
      instanceStoreGB: 0,
      bytes: 20 * GI,
    },
    {
      name: "a Custom AMI's last mapping",
      source: { amiFamily: "Custom", blockDeviceMappings: [ebs("/dev/xvda", "8Gi"), ebs("/dev/xvdb", "60Gi")] },
      instanceStoreGB: 0,
      bytes: 60 * GI,
    },
    {
      name: "the instance-store total in GB under RAID0",
      source: { amiFamily: "AL2023", instanceStorePolicy: "RAID0" },
      instanceStoreGB: 474,
      bytes: 474e9,
    },
    {
      name: "EBS under RAID0 for a type without instance storage",
      source: { amiFamily: "AL2023", instanceStorePolicy: "RAID0" },
      instanceStoreGB: 0,
      bytes: 20 * GI,
    },
  ];
  for (const c of cases)
    void it(`should take ${c.name}`, () => assert.equal(ephemeralStorageBytes(c.source, c.instanceStoreGB), c.bytes));
});
