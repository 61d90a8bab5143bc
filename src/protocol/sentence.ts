// Sentences made of a template and pieces of text, as "Could not compact ({0}): {1}." is: a piece that is
// a sentence of its own ("There is nothing to replace.") brought its full stop and the template added
// another ("replace.."). Shared by the engine's notices and the hosts' own lines.

/** A full stop at the end of a piece (not an ellipsis, `...`, which stays as it is). */
const FINAL_STOP = /(?<!\.)[.。]$/;

/** `text` without its final full stop, to go before a template's own (`{1}.`); other marks stay. */
export function clause(text: string): string {
  return text.trimEnd().replace(FINAL_STOP, '');
}

/** `args` with the final full stop taken off each piece the template follows with its own (`{1}.`). */
export function stopOnce(template: string, args: ReadonlyArray<string | number>): string[] {
  return args.map((a, i) =>
    template.includes(`{${i}}.`) || template.includes(`{${i}}。`) ? clause(String(a)) : String(a),
  );
}
