"""A comparable snapshot of everything schema pgflow holds (install and upgrade tests)."""

from __future__ import annotations

import psycopg

# Each query lists one kind of object of schema pgflow, in a stable order, as plain text
# values: two installs are equal when every query returns the same rows. Privileges
# (nspacl, proacl, relacl) are compared too: both paths must grant the same.
CATALOG_QUERIES = {
    "schema": """
        select n.nspname, pg_get_userbyid(n.nspowner), n.nspacl::text
        from pg_namespace n where n.nspname = 'pgflow'
    """,
    "functions": """
        select p.oid::regprocedure::text, pg_get_function_identity_arguments(p.oid),
               pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), p.prokind,
               p.provolatile, p.prosecdef, p.proisstrict, p.proconfig::text, l.lanname,
               md5(p.prosrc), obj_description(p.oid, 'pg_proc'), p.proacl::text
        from pg_proc p
        join pg_namespace n on n.oid = p.pronamespace
        join pg_language l on l.oid = p.prolang
        where n.nspname = 'pgflow'
        order by 1
    """,
    "relations": """
        select c.relname, c.relkind, c.relpersistence, obj_description(c.oid, 'pg_class'),
               c.relacl::text
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'pgflow'
        order by 1
    """,
    "columns": """
        -- the position among the live columns (a dropped column leaves a gap in attnum)
        select c.relname, row_number() over (partition by c.relname order by a.attnum),
               a.attname, format_type(a.atttypid, a.atttypmod),
               a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated
        from pg_attribute a
        join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where n.nspname = 'pgflow' and a.attnum > 0 and not a.attisdropped
        order by 1, 2
    """,
    "constraints": """
        select conrelid::regclass::text, contypid::regtype::text, conname,
               pg_get_constraintdef(oid), condeferrable, condeferred
        from pg_constraint
        where connamespace = 'pgflow'::regnamespace
        order by 1, 2, 3
    """,
    "indexes": """
        select indexname, indexdef from pg_indexes where schemaname = 'pgflow' order by 1
    """,
    "types": """
        select t.typname, t.typtype, format_type(t.typbasetype, t.typtypmod),
               obj_description(t.oid, 'pg_type'),
               (select array_agg(e.enumlabel order by e.enumsortorder)
                  from pg_enum e where e.enumtypid = t.oid)::text
        from pg_type t
        where t.typnamespace = 'pgflow'::regnamespace and t.typtype <> 'b'
        order by 1
    """,
    "triggers": """
        select tgrelid::regclass::text, tgname, pg_get_triggerdef(oid)
        from pg_trigger
        where not tgisinternal
          and tgrelid in (select oid from pg_class where relnamespace = 'pgflow'::regnamespace)
        order by 1, 2
    """,
    "views": """
        select viewname, definition from pg_views where schemaname = 'pgflow' order by 1
    """,
}


def catalog(dsn: str) -> dict[str, list[tuple[object, ...]]]:
    with psycopg.connect(dsn) as conn:
        return {name: conn.execute(query).fetchall() for name, query in CATALOG_QUERIES.items()}
