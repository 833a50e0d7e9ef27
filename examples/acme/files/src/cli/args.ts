export interface Args {
  flags: Record<string, string | boolean>;
  positional: string[];
}

/** Parses command-line arguments, validating that every --flag has a known name. */
export function parse(argv: string[], known: string[]): Args {
  const args: Args = { flags: {}, positional: [] };
  for (const arg of argv) {
    if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split("=");
      if (!known.includes(name)) throw new Error(`unknown flag --${name}`);
      args.flags[name] = value ?? true;
    } else {
      args.positional.push(arg);
    }
  }
  return args;
}
