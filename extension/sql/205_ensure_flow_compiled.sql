-- ensure_flow_compiled: makes flow flow_slug match shape (the worker's definition, see
-- _get_flow_shape), under pg_advisory_xact_lock(1, hashtext(flow_slug)).

create function pgflow.ensure_flow_compiled(flow_slug text, shape jsonb, allow_data_loss boolean default false)
returns jsonb
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_diffs text[];
begin
  -- VALIDATE: a shape is an object with a steps array (else a typo compiles an empty flow).
  perform pgflow._check_flow_shape(ensure_flow_compiled.flow_slug, ensure_flow_compiled.shape);

  perform pg_catalog.pg_advisory_xact_lock(1, pg_catalog.hashtext(ensure_flow_compiled.flow_slug));

  if not exists (select 1 from pgflow.flows as f where f.flow_slug = ensure_flow_compiled.flow_slug) then
    perform pgflow._create_flow_from_shape(ensure_flow_compiled.flow_slug, ensure_flow_compiled.shape);
    return jsonb_build_object('status', 'compiled', 'differences', '[]'::jsonb);
  end if;

  v_diffs := pgflow._compare_flow_shapes(
    ensure_flow_compiled.shape, pgflow._get_flow_shape(ensure_flow_compiled.flow_slug)
  );
  if cardinality(v_diffs) = 0 then
    return jsonb_build_object('status', 'verified', 'differences', '[]'::jsonb);
  end if;

  if pgflow.is_local() or ensure_flow_compiled.allow_data_loss then
    perform pgflow.delete_flow_and_data(ensure_flow_compiled.flow_slug);
    perform pgflow._create_flow_from_shape(ensure_flow_compiled.flow_slug, ensure_flow_compiled.shape);
    return jsonb_build_object('status', 'recompiled', 'differences', to_jsonb(v_diffs));
  end if;

  return jsonb_build_object('status', 'mismatch', 'differences', to_jsonb(v_diffs));
end;
$$;

comment on function pgflow.ensure_flow_compiled(text, jsonb, boolean) is
'Makes flow flow_slug match shape (the worker''s definition, see _get_flow_shape), under
pg_advisory_xact_lock(1, hashtext(flow_slug)). Returns {"status": s, "differences": [..]}:
compiled (flow was missing and is now created), verified (shapes equal), recompiled
(shapes differed and allow_data_loss or is_local(): the flow and ALL its runs were deleted
and recreated), mismatch (shapes differ; nothing changed, the worker must refuse to
start). Raises invalid_parameter_value, writing nothing, when shape is not a JSON object
with a "steps" array (pgflow-py; upstream compiles an empty flow). As upstream 0.14.1.';
