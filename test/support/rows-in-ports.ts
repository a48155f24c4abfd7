import { join, relative, sep } from 'node:path';
import { API, type Checker, type Symbol as Sym, SignatureKind, type Type, TypeFlags } from 'typescript/unstable/sync';

/** One row type reached through a module's port: who reads it, through what, and which row. */
export interface RowInPort {
  /** `claims/deps.ts ClaimsDeps.orders.orderRow` */
  where: string;
  row: string;
}

const ROW = /Row$/;

/**
 * The row types (`*Row`) that a module's `deps.ts` port hands across a border: in the parameters
 * or results, as the compiler infers them, of every function the port takes from another module,
 * and in the payloads of listeners it registers there. Asks the compiler (TypeScript's API) rather
 * than reading the source, so an inferred result counts as much as a declared one.
 */
export function rowsInPorts(root: string): { functions: number; rows: RowInPort[] } {
  const modules = join(root, 'src', 'modules');
  const moduleOf = (path: string) => {
    const rel = relative(modules, path);
    return rel.startsWith('..') ? null : rel.split(sep)[0];
  };
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProjects: [join(root, 'tsconfig.json')] }).getProjects()[0];
    const { checker, program } = project;
    const out: RowInPort[] = [];
    let functions = 0;
    for (const file of program.getSourceFileNames()) {
      const mine = moduleOf(file);
      if (!mine || relative(join(modules, mine), file) !== 'deps.ts') continue;
      const sf = program.getSourceFile(file);
      const mod = sf && checker.getSymbolAtLocation(sf);
      if (!mod) continue;
      for (const port of checker.getExportsOfModule(mod)) {
        for (const part of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(port))) {
          for (const fn of checker.getPropertiesOfType(typeOf(checker, part))) {
            const owner = fn.declarations.map((d) => moduleOf(d.path)).find((m) => m);
            if (!owner || owner === mine) continue;
            functions++;
            const where = `${mine}/deps.ts ${port.name}.${part.name}.${fn.name}`;
            for (const row of rowsIn(checker, typeOf(checker, fn), new Set(), 0)) out.push({ where, row });
          }
        }
      }
    }
    return { functions, rows: out };
  } finally {
    api.close();
  }
}

function typeOf(checker: Checker, s: Sym): Type {
  return checker.getTypeOfSymbol(s) ?? checker.getAnyType();
}

/** Row type names in a type: its unions, type arguments, signatures and (own) properties. */
function rowsIn(checker: Checker, t: Type, seen: Set<number>, depth: number): string[] {
  if (seen.has(t.id) || depth > 6) return [];
  seen.add(t.id);
  const named = [t.getAliasSymbol()?.name, t.getSymbol()?.name].find((n) => n && ROW.test(n));
  if (named) return [named];
  if (t.isUnionType() || t.isIntersectionType())
    return t.getTypes().flatMap((u) => rowsIn(checker, u, seen, depth + 1));
  if (!(t.flags & TypeFlags.Object)) return [];
  const found: string[] = [];
  const deeper = (u: Type | undefined) => u && found.push(...rowsIn(checker, u, seen, depth + 1));
  for (const a of [...t.getAliasTypeArguments(), ...(t.isTypeReference() ? checker.getTypeArguments(t) : [])])
    deeper(a);
  for (const kind of [SignatureKind.Call, SignatureKind.Construct])
    for (const sig of checker.getSignaturesOfType(t, kind)) {
      deeper(checker.getReturnTypeOfSignature(sig));
      for (let i = 0; i < sig.getParameters().length; i++) deeper(checker.getParameterType(sig, i));
    }
  // Properties of the project's own object types; the library's (Promise, Date, Buffer) are not read.
  const declaredIn = t.getSymbol()?.declarations[0]?.path ?? '';
  if (!declaredIn.includes('/node_modules/'))
    for (const p of checker.getPropertiesOfType(t)) deeper(typeOf(checker, p));
  return found;
}
