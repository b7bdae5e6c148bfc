/** The bundled regions as usage text: wrapped, each continuation line indented to the options' text column. */
import { bundledRegions } from "../../policies/domain/catalog/builtin.ts";

/** `bundledRegions()` joined by ", " in lines of at most `width` characters, continuation lines indented. */
export function regionList(indent: number, width = 72): string {
  const lines: string[] = [];
  let line = "";
  for (const region of bundledRegions()) {
    const next = line === "" ? region : `${line}, ${region}`;
    if (next.length > width && line !== "") {
      lines.push(`${line},`);
      line = region;
    } else {
      line = next;
    }
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}
