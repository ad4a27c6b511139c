-- _compare_flow_shapes: compares two flow shapes step by step (by position) and returns the
-- differences as text, {} when equal: "Step count differs: <a> vs <b>", "Step at index <i>:
-- missing in first|second shape (...)", "... slug|type differs '<a>' vs '<b>'", "...
-- dependencies differ [a, b] vs [c]", "... whenUnmet|whenExhausted differs ...", "...
-- requiredInputPattern| forbiddenInputPattern differs '<json>' vs '<json>'". Options are not
-- compared.

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
Missing keys take their defaults (single, [], skip, fail, not defined). As upstream 0.14.1.';
