-- Driven by tests/test_nvim.py: nvim --headless -u NONE -c 'luafile tests/nvim/quickfix.lua'
-- Open a racy kernel with the documented client setup (AUTOSYNC_NVIM_SETUP, the Lua block of
-- docs/editors.md), wait for the server's diagnostics, apply the AutoSync quick-fix, write the
-- file and quit.  Progress goes to AUTOSYNC_NVIM_LOG; the exit code says which step failed.
-- Only APIs of Neovim 0.7 are used (no vim.fs, no vim.lsp.start).
local log_path = os.getenv("AUTOSYNC_NVIM_LOG")
local function log(msg)
  local f = io.open(log_path, "a")
  f:write(msg .. "\n")
  f:close()
end
local function fail(code, msg)
  log("FAIL " .. msg)
  vim.cmd("cquit " .. code)
end

-- keep the raw LSP diagnostics as the server published them (for the code-action context)
local published = {}
local show = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  published[result.uri] = result.diagnostics
  return show(err, result, ctx, config)
end

vim.cmd("filetype on") -- -u NONE leaves filetype detection off; .cu files are 'cuda'
dofile(os.getenv("AUTOSYNC_NVIM_SETUP"))
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("AUTOSYNC_NVIM_FILE")))
local buf = vim.api.nvim_get_current_buf()
log("filetype " .. vim.bo[buf].filetype)

local race, uri
local timeout = tonumber(os.getenv("AUTOSYNC_NVIM_TIMEOUT") or "120") * 1000
local got = vim.wait(timeout, function()
  for u, diags in pairs(published) do
    for _, d in ipairs(diags) do
      if d.code == "race" then
        race, uri = d, u
        return true
      end
    end
  end
  return false
end, 100)
if not got then
  return fail(2, "no race diagnostic")
end
log("diagnostic " .. race.message)

local params = { textDocument = { uri = uri }, range = race.range, context = { diagnostics = { race } } }
local replies = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, timeout)
local action, client_id
for id, reply in pairs(replies or {}) do
  for _, a in ipairs(reply.result or {}) do
    if a.title == "Insert optimal barriers (AutoSync)" and a.disabled == nil then
      action, client_id = a, id
    end
  end
end
if action == nil then
  return fail(3, "no enabled AutoSync quick-fix")
end
vim.lsp.util.apply_workspace_edit(action.edit, vim.lsp.get_client_by_id(client_id).offset_encoding)
vim.cmd("write")
log("written")
vim.cmd("qall!")
