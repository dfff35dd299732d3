export declare const MIN_NODE_MAJOR: number;
export declare function nodeVersionProblem(version: string, execPath: string): string | null;
export declare function dependenciesProblem(root: string): string | null;
