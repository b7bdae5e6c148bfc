/**
 * Throwaway PKI for a test environment, minted with openssl: a CA, serving certificates with the
 * IP SAN 127.0.0.1 that Go clients require, an admin client certificate in system:masters, and the
 * service-account signing key pair.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const openssl = (args: string[]): Promise<unknown> => execFileAsync("openssl", args);

/** File paths of one certificate and its key. */
export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

/** The PKI of one environment. */
export interface Pki {
  readonly dir: string;
  readonly ca: KeyPair;
  readonly apiserver: KeyPair;
  readonly admin: KeyPair;
  readonly serviceAccount: { readonly publicKey: string; readonly privateKey: string };
}

const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

async function createCa(dir: string): Promise<KeyPair> {
  const pair = { cert: path.join(dir, "ca.crt"), key: path.join(dir, "ca.key") };
  await openssl([
    "req",
    "-x509",
    ...ecKey,
    "-keyout",
    pair.key,
    "-out",
    pair.cert,
    "-days",
    "30",
    "-subj",
    "/CN=kerf-test-ca",
  ]);
  return pair;
}

/** Issues a certificate signed by `ca`; `extensions` are openssl x509v3 lines. */
export async function issueCertificate(
  ca: KeyPair,
  dir: string,
  options: { name: string; subject: string; extensions: string[] },
): Promise<KeyPair> {
  const base = path.join(dir, options.name);
  const pair = { cert: `${base}.crt`, key: `${base}.key` };
  await openssl(["req", ...ecKey, "-keyout", pair.key, "-out", `${base}.csr`, "-subj", options.subject]);
  await writeFile(`${base}.ext`, options.extensions.join("\n") + "\n");
  // A random serial per certificate, not -CAcreateserial: certificates issued concurrently from one
  // CA would race on its shared serial file (seen as "Unable to load number from ca.srl").
  const serial = `0x1${randomBytes(15).toString("hex")}`;
  await openssl([
    "x509",
    "-req",
    "-in",
    `${base}.csr`,
    "-CA",
    ca.cert,
    "-CAkey",
    ca.key,
    "-set_serial",
    serial,
    "-out",
    pair.cert,
    "-days",
    "30",
    "-extfile",
    `${base}.ext`,
  ]);
  return pair;
}

/** A serving certificate for 127.0.0.1 / localhost. */
export function issueServingCertificate(ca: KeyPair, dir: string, name: string): Promise<KeyPair> {
  return issueCertificate(ca, dir, {
    name,
    subject: `/CN=${name}`,
    extensions: ["subjectAltName=IP:127.0.0.1,DNS:localhost", "extendedKeyUsage=serverAuth"],
  });
}

/** Creates the whole PKI in `dir`. */
export async function createPki(dir: string): Promise<Pki> {
  const ca = await createCa(dir);
  const [apiserver, admin] = await Promise.all([
    issueServingCertificate(ca, dir, "apiserver"),
    issueCertificate(ca, dir, {
      name: "admin",
      subject: "/O=system:masters/CN=kerf-admin",
      extensions: ["extendedKeyUsage=clientAuth"],
    }),
  ]);
  const serviceAccount = { privateKey: path.join(dir, "sa.key"), publicKey: path.join(dir, "sa.pub") };
  await openssl(["genrsa", "-out", serviceAccount.privateKey, "2048"]);
  await openssl(["rsa", "-in", serviceAccount.privateKey, "-pubout", "-out", serviceAccount.publicKey]);
  return { dir, ca, apiserver, admin, serviceAccount };
}
