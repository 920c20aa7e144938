import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A synthesized CloudFormation template, as far as these helpers read it. */
interface TemplateJson {
  readonly Resources: Record<
    string,
    { readonly Type: string; readonly Properties?: Record<string, unknown> }
  >;
}

/**
 * The asset directory, in a cloud assembly, that a template's one outbox relay function deploys
 * (found by its description, `sqs-inbox outbox relay of <name>`); throws unless there is one.
 *
 * @example
 * ```ts
 * relayAssetDirectory(Template.fromStack(stack).toJSON(), app.outdir); // '/tmp/cdk.outXyz/asset.3f…'
 * ```
 */
export function relayAssetDirectory(template: unknown, cloudAssembly: string): string {
  const relays = Object.values((template as TemplateJson).Resources).filter(
    ({ Type, Properties }) =>
      Type === 'AWS::Lambda::Function' &&
      String(Properties?.Description).startsWith('sqs-inbox outbox relay of '),
  );
  if (relays.length !== 1) throw new Error(`${relays.length} outbox relay functions, not one`);
  const code = relays[0]?.Properties?.Code as { readonly S3Key?: unknown } | undefined;
  return join(cloudAssembly, `asset.${String(code?.S3Key).replace(/\.zip$/, '')}`);
}

/**
 * Each file of a directory by name, with its bytes: two directories are equal byte for byte
 * when these are `toEqual`.
 *
 * @example
 * ```ts
 * expect(filesOf(staged)).toEqual(filesOf(shipped));
 * ```
 */
export function filesOf(dir: string): Record<string, Buffer> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))]));
}
