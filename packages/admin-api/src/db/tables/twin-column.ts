import type { $Type, ColumnBuilderBase, HasDefault, SQL } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as lite from "drizzle-orm/sqlite-core";

type Modifier = "notNull" | "primaryKey" | "unique";
/** The modifiers a twin applies to both builders (drizzle's column builders all have them). */
type Modifiable<Base extends ColumnBuilderBase> = Base & {
  [M in Modifier]: () => Modifiable<Base>;
} & {
  default(value: unknown): unknown;
  $type(): unknown;
};
export type SqliteBuilder = Modifiable<lite.SQLiteColumnBuilderBase>;
export type PgBuilder = Modifiable<pg.PgColumnBuilderBase>;

/** What a builder's column holds, as drizzle's own `default` takes it. */
type Value<B extends ColumnBuilderBase> = B["_"] extends { $type: infer U } ? U : B["_"]["data"];
/**
 * What drizzle's own modifier `M` makes of builder `B`, as drizzle types it for that builder
 * (an SQLite integer key, say, also gets the rowid's default).
 */
type After<
  B extends Modifiable<ColumnBuilderBase>,
  M extends Modifier,
  Base extends ColumnBuilderBase,
> = B[M] extends (() => infer R extends Base) ? R : never;

/**
 * One column of a table both databases hold, written once: each modifier is applied to the
 * SQLite builder and to the PostgreSQL builder alike, so each keeps drizzle's own types.
 */
export class TwinColumn<S extends SqliteBuilder, P extends PgBuilder> {
  constructor(
    readonly sqlite: S,
    readonly pg: P,
  ) {}

  notNull(): TwinColumn<After<S, "notNull", SqliteBuilder>, After<P, "notNull", PgBuilder>> {
    return this.modified("notNull");
  }

  primaryKey(): TwinColumn<
    After<S, "primaryKey", SqliteBuilder>,
    After<P, "primaryKey", PgBuilder>
  > {
    return this.modified("primaryKey");
  }

  unique(): TwinColumn<After<S, "unique", SqliteBuilder>, After<P, "unique", PgBuilder>> {
    return this.modified("unique");
  }

  private modified<M extends Modifier>(
    modifier: M,
  ): TwinColumn<After<S, M, SqliteBuilder>, After<P, M, PgBuilder>> {
    return new TwinColumn(
      this.sqlite[modifier]() as After<S, M, SqliteBuilder>,
      this.pg[modifier]() as After<P, M, PgBuilder>,
    );
  }

  default(value: Value<S> & Value<P>): TwinColumn<HasDefault<S>, HasDefault<P>> {
    return this.defaultSql(value, value);
  }

  /** A default each database spells its own way (JSON: text on SQLite, `jsonb` on PostgreSQL). */
  defaultSql(sqlite: Value<S> | SQL, pg: Value<P> | SQL): TwinColumn<HasDefault<S>, HasDefault<P>> {
    return new TwinColumn(
      this.sqlite.default(sqlite) as HasDefault<S>,
      this.pg.default(pg) as HasDefault<P>,
    );
  }

  $type<T>(): TwinColumn<$Type<S, T>, $Type<P, T>> {
    return new TwinColumn(this.sqlite.$type() as $Type<S, T>, this.pg.$type() as $Type<P, T>);
  }
}

export const text = <N extends string>(name: N) => new TwinColumn(lite.text(name), pg.text(name));

/** Text limited to `values` (no constraint in either database: drizzle types it). */
export const textEnum = <N extends string, const E extends readonly [string, ...string[]]>(
  name: N,
  values: E,
) => new TwinColumn(lite.text(name, { enum: values }), pg.text(name, { enum: values }));

/** A 32-bit integer on PostgreSQL. */
export const integer = <N extends string>(name: N) =>
  new TwinColumn(lite.integer(name), pg.integer(name));

/** Epoch milliseconds (or seconds), counters: `bigint` on PostgreSQL, read back as a JS number. */
export const bigint = <N extends string>(name: N) =>
  new TwinColumn(lite.integer(name), pg.bigint(name, { mode: "number" }));

/** A flag: integer 0/1 on SQLite, `boolean` on PostgreSQL. */
export const boolean = <N extends string>(name: N) =>
  new TwinColumn(lite.integer(name, { mode: "boolean" }), pg.boolean(name));

/** A JSON document: text on SQLite, `jsonb` on PostgreSQL; give its shape with `$type`. */
export const json = <N extends string>(name: N) =>
  new TwinColumn(lite.text(name, { mode: "json" }), pg.jsonb(name));

/** The generated row id: SQLite's autoincrement key, PostgreSQL's `bigint` identity. */
export const rowId = <N extends string>(name: N) =>
  new TwinColumn(
    lite.integer(name).primaryKey({ autoIncrement: true }),
    pg.bigint(name, { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  );
