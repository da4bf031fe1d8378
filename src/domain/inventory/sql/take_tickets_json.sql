-- take_tickets.sql with its arguments given as one JSON object (a take of take_tickets_group.sql:
-- b, ids, q, scope, prices, variants, opening, seats; absent or null where take_tickets takes
-- null), answering its rows as one JSON array. Raises what take_tickets raises.
CREATE OR REPLACE FUNCTION take_tickets_json(p_seller uuid, p_take jsonb, p_sell boolean)
RETURNS jsonb
LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb)
    FROM take_tickets(
           p_seller,
           ARRAY(SELECT jsonb_array_elements_text(p_take->'ids'))::uuid[],
           ARRAY(SELECT jsonb_array_elements_text(p_take->'q'))::integer[],
           (p_take->>'b')::uuid,
           CASE WHEN jsonb_typeof(p_take->'scope') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(p_take->'scope'))::uuid[] END,
           CASE WHEN jsonb_typeof(p_take->'prices') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(p_take->'prices'))::integer[] END,
           CASE WHEN jsonb_typeof(p_take->'variants') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(p_take->'variants')) END,
           p_sell,
           coalesce((p_take->>'opening')::boolean, false),
           CASE WHEN jsonb_typeof(p_take->'seats') = 'array' THEN p_take->'seats' END) AS r
$$;
