/** Types of scripts/bundle-cli.js for the TypeScript that imports it (test/helpers/cli-bundle-setup.ts). */
export declare const EXTERNAL_PACKAGES: string[];
export declare function bundleCli(entryPoints: Record<string, string>, outdir: string): Promise<void>;
