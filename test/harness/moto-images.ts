/**
 * AMIs in moto that carry an Architecture, as real AMIs do. moto's RegisterImage ignores its
 * Architecture parameter (the image is then described without one), while Karpenter maps each image's
 * architecture to a kubernetes.io/arch requirement and drops images without a known one, and kerf
 * would read such an image as x86_64. CopyImage keeps the source image's architecture, so an image
 * is registered as a copy of one of moto's built-in images of the wanted architecture, under the
 * wanted name.
 */
import { CopyImageCommand, DescribeImagesCommand, type EC2Client } from "@aws-sdk/client-ec2";

/** Registers an image named `name` whose Architecture is `arch`; returns its id. */
export async function registerImage(ec2: EC2Client, name: string, arch: "x86_64" | "arm64"): Promise<string> {
  const filters = [
    { Name: "architecture", Values: [arch] },
    { Name: "state", Values: ["available"] },
  ];
  const images = (await ec2.send(new DescribeImagesCommand({ Filters: filters }))).Images ?? [];
  // A Linux image of moto's own set (never one registered earlier, whose name says nothing), lowest id first.
  const source = images
    .filter((i) => String(i.Platform ?? "").toLowerCase() !== "windows" && i.ImageId !== undefined)
    .filter((i) => i.ImageLocation?.startsWith("amazon/") === true)
    .sort((a, b) => (a.ImageId ?? "").localeCompare(b.ImageId ?? ""))[0];
  if (source?.ImageId === undefined) {
    throw new Error(`registering image ${name}: moto has no built-in ${arch} image to copy`);
  }
  const region = await ec2.config.region();
  const copy = await ec2.send(
    new CopyImageCommand({
      Name: name,
      SourceImageId: source.ImageId,
      SourceRegion: region,
    }),
  );
  if (copy.ImageId === undefined) throw new Error(`registering image ${name}: CopyImage answered no image id`);
  return copy.ImageId;
}
