/** Imports every subcommand module so each registers itself; add new commands here. */
import "./check.ts";
import "./webhook.ts";
import "./simulate.ts";
import "../../operator/cli.ts";
