-- homa-subdissector-test.lua - sub-dissectors used by behaviour.sh to prove
-- that the Homa plugin hands complete messages on: one registered in the
-- "homa.port" table for server port 99, one heuristic on the "homa" list
-- that claims messages whose first byte is 'g' on other ports.
local byport = Proto("homatest_port", "Homa port-table test")
local f_len = ProtoField.uint32("homatest_port.len", "Message length")
byport.fields = { f_len }
function byport.dissector(tvb, pinfo, tree)
	local t = tree:add(byport, tvb())
	t:add(f_len, tvb:len())
	return tvb:len()
end
DissectorTable.get("homa.port"):add(99, byport)

local heur = Proto("homatest_heur", "Homa heuristic test")
local h_len = ProtoField.uint32("homatest_heur.len", "Message length")
heur.fields = { h_len }
local function heur_fn(tvb, pinfo, tree)
	if tvb:len() < 1 or tvb(0, 1):uint() ~= string.byte("g") then
		return false
	end
	local t = tree:add(heur, tvb())
	t:add(h_len, tvb:len())
	return true
end
heur:register_heuristic("homa", heur_fn)
