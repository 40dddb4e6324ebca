// The package ships no types; only the call the data-dir lock makes is declared.
declare module "fs-native-extensions" {
  /** Non-blocking lock of a whole file (Linux: an open-file-description lock); false when held. */
  function tryLock(fd: number, opts?: { shared?: boolean }): boolean;
  const fsx: { tryLock: typeof tryLock };
  export default fsx;
}
