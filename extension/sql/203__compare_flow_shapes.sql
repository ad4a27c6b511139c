-- _compare_flow_shapes: compares two flow shapes step by step (by position) and returns the
-- differences as text, {} when equal: "Step count differs: <a> vs <b>", "Step at index <i>:
-- missing in first|second shape (...)", "... slug|type differs '<a>' vs '<b>'", "...
-- dependencies differ [a, b] vs [c]", "... whenUnmet|whenExhausted differs ...", "...
-- requiredInputPattern| forbiddenInputPattern differs '<json>' vs '<json>'", "... wait differs
-- '<json>' vs '<json>'" (pgflow-py: wait steps). Options are not compared.

create function pgflow._compare_flow_shapes(p_local jsonb, p_db jsonb)
returns text[]
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_local jsonb := coalesce(p_local -> 'steps', '[]'::jsonb);
  v_db jsonb := coalesce(p_db -> 'steps', '[]'::jsonb);
  v_local_count int := jsonb_array_length(v_local);
  v_db_count int := jsonb_array_length(v_db);
  v_diffs text[] := '{}';
  v_a jsonb;
  v_b jsonb;
  v_a_deps text;
  v_b_deps text;
  v_field text;
  v_waits jsonb[];
  v_wait jsonb;
begin
  if v_local_count <> v_db_count then
    v_diffs := v_diffs || format('Step count differs: %s vs %s', v_local_count, v_db_count);
  end if;

  for i in 0 .. greatest(v_local_count, v_db_count) - 1 loop
    v_a := v_local -> i;
    v_b := v_db -> i;
    if v_a is null then
      v_diffs := v_diffs || format('Step at index %s: missing in first shape (second has ''%s'')', i, v_b ->> 'slug');
      continue;
    end if;
    if v_b is null then
      v_diffs := v_diffs || format('Step at index %s: missing in second shape (first has ''%s'')', i, v_a ->> 'slug');
      continue;
    end if;

    if (v_a ->> 'slug') is distinct from (v_b ->> 'slug') then
      v_diffs := v_diffs || format('Step at index %s: slug differs ''%s'' vs ''%s''', i, v_a ->> 'slug', v_b ->> 'slug');
    end if;
    if coalesce(v_a ->> 'stepType', 'single') <> coalesce(v_b ->> 'stepType', 'single') then
      v_diffs := v_diffs || format('Step at index %s: type differs ''%s'' vs ''%s''', i,
                                   coalesce(v_a ->> 'stepType', 'single'), coalesce(v_b ->> 'stepType', 'single'));
    end if;
    select coalesce(string_agg(x, ', ' order by x), '') into v_a_deps
      from jsonb_array_elements_text(coalesce(v_a -> 'dependencies', '[]'::jsonb)) as x;
    select coalesce(string_agg(x, ', ' order by x), '') into v_b_deps
      from jsonb_array_elements_text(coalesce(v_b -> 'dependencies', '[]'::jsonb)) as x;
    if v_a_deps <> v_b_deps then
      v_diffs := v_diffs || format('Step at index %s: dependencies differ [%s] vs [%s]', i, v_a_deps, v_b_deps);
    end if;
    if coalesce(v_a ->> 'whenUnmet', 'skip') <> coalesce(v_b ->> 'whenUnmet', 'skip') then
      v_diffs := v_diffs || format('Step at index %s: whenUnmet differs ''%s'' vs ''%s''', i,
                                   coalesce(v_a ->> 'whenUnmet', 'skip'), coalesce(v_b ->> 'whenUnmet', 'skip'));
    end if;
    if coalesce(v_a ->> 'whenExhausted', 'fail') <> coalesce(v_b ->> 'whenExhausted', 'fail') then
      v_diffs := v_diffs || format('Step at index %s: whenExhausted differs ''%s'' vs ''%s''', i,
                                   coalesce(v_a ->> 'whenExhausted', 'fail'), coalesce(v_b ->> 'whenExhausted', 'fail'));
    end if;
    foreach v_field in array array['requiredInputPattern', 'forbiddenInputPattern']::text[] loop
      if coalesce(v_a -> v_field, '{"defined": false}'::jsonb) <> coalesce(v_b -> v_field, '{"defined": false}'::jsonb) then
        v_diffs := v_diffs || format('Step at index %s: %s differs ''%s'' vs ''%s''', i, v_field,
                                     coalesce(v_a -> v_field, '{"defined": false}'::jsonb)::text,
                                     coalesce(v_b -> v_field, '{"defined": false}'::jsonb)::text);
      end if;
    end loop;
    -- The wait (pgflow-py): missing or JSON null is no wait; missing keys take add_wait's
    -- and add_timer's defaults, as _create_flow_from_shape applies them.
    v_waits := array[v_a -> 'wait', v_b -> 'wait'];
    for k in 1 .. 2 loop
      v_wait := nullif(v_waits[k], 'null'::jsonb);
      v_waits[k] := case
        when v_wait is null then 'null'::jsonb
        when jsonb_typeof(v_wait) <> 'object' then v_wait
        when v_wait ->> 'kind' = 'signal' then jsonb_build_object(
          'kind', 'signal',
          'signal', v_wait -> 'signal',
          'match', coalesce(v_wait -> 'match', 'null'::jsonb),
          'timeout', coalesce(v_wait -> 'timeout', 'null'::jsonb),
          'onTimeout', coalesce(nullif(v_wait -> 'onTimeout', 'null'::jsonb), '"fail"'::jsonb),
          'handler', coalesce(nullif(v_wait -> 'handler', 'null'::jsonb), 'true'::jsonb))
        when v_wait ->> 'kind' = 'timer' then jsonb_build_object(
          'kind', 'timer',
          'seconds', coalesce(v_wait -> 'seconds', 'null'::jsonb),
          'until', coalesce(v_wait -> 'until', 'null'::jsonb))
        else v_wait
      end;
    end loop;
    if v_waits[1] <> v_waits[2] then
      v_diffs := v_diffs || format('Step at index %s: wait differs ''%s'' vs ''%s''', i,
                                   v_waits[1]::text, v_waits[2]::text);
    end if;
  end loop;

  return v_diffs;
end;
$$;

comment on function pgflow._compare_flow_shapes(jsonb, jsonb) is
'Compares two flow shapes step by step (by position) and returns the differences as text,
{} when equal: "Step count differs: <a> vs <b>", "Step at index <i>: missing in first|second
shape (...)", "... slug|type differs ''<a>'' vs ''<b>''", "... dependencies differ [a, b]
vs [c]", "... whenUnmet|whenExhausted differs ...", "... requiredInputPattern|
forbiddenInputPattern differs ''<json>'' vs ''<json>''". Options are not compared.
Missing keys take their defaults (single, [], skip, fail, not defined). As upstream 0.14.1,
plus (pgflow-py) "... wait differs ''<json>'' vs ''<json>''" when the steps'' "wait" keys
differ (format: _get_flow_shape; a missing or JSON null wait is no wait, printed null);
within a wait, missing match, timeout, seconds and until are null, a missing onTimeout is
fail and a missing handler true (the defaults of add_wait / add_timer, as
_create_flow_from_shape applies them). Shapes without waits compare as upstream''s.';
