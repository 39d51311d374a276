-- Neovim (0.7 and later) as the editor of `agent-sdk lsp`, headless: tests/it/lsp.rs runs
--   nvim --headless -u NONE -n -c "luafile tests/neovim/lsp.lua"
-- with AGENT_SDK (the binary), PROJECT (the project folder), HOOK (a clean hook in it) and
-- OUT (where to write what happened, as JSON); with VERSIONED set, Neovim says it takes
-- versioned edits (`documentChanges`, which it checks against the buffer's version). It
-- opens the hook, makes an unsaved edit that misspells an event key, waits for the
-- warning, applies the server's "disable for this line" code action, waits for the warning
-- to go, and writes out each step.

local out = {}
local function finish()
  local file = io.open(os.getenv("OUT"), "w")
  file:write(vim.fn.json_encode(out))
  file:close()
  vim.cmd("qa!")
end

local ok, failure = pcall(function()
  local published = {}
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  if os.getenv("VERSIONED") then
    capabilities.workspace.workspaceEdit.documentChanges = true
  end
  local client_id = vim.lsp.start_client({
    name = "agent-sdk",
    cmd = { os.getenv("AGENT_SDK"), "lsp", "--stdio" },
    root_dir = os.getenv("PROJECT"),
    capabilities = capabilities,
    flags = { debounce_text_changes = 10 },
    handlers = {
      ["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
        table.insert(published, result)
        return vim.lsp.handlers["textDocument/publishDiagnostics"](err, result, ctx, config)
      end,
    },
  })
  assert(client_id, "the server did not start")
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("HOOK")))
  local buffer = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buffer)
  assert(vim.lsp.buf_attach_client(buffer, client_id), "the buffer could not be attached")
  local client = vim.lsp.get_client_by_id(client_id)
  assert(vim.wait(10000, function() return client.initialized end, 20), "the server did not initialize")

  -- The last diagnostics published for the buffer, once `accept` takes them.
  local function wait_for_diagnostics(accept)
    local found
    vim.wait(20000, function()
      for index = #published, 1, -1 do
        if published[index].uri == uri then
          if accept(published[index].diagnostics) then
            found = published[index].diagnostics
          end
          return found ~= nil
        end
      end
      return false
    end, 20)
    return found
  end

  -- An unsaved edit: `turn.completed` misspelt on line 4.
  local line = vim.api.nvim_buf_get_lines(buffer, 3, 4, false)[1]
  vim.api.nvim_buf_set_lines(buffer, 3, 4, false, { (line:gsub("turn%.completed", "turn.complete")) })
  local diagnostics = wait_for_diagnostics(function(found) return #found > 0 end)
  assert(diagnostics, "no diagnostics for the unsaved edit")
  out.diagnostics = diagnostics

  local actions = client.request_sync("textDocument/codeAction", {
    textDocument = { uri = uri },
    range = diagnostics[1].range,
    context = { diagnostics = diagnostics },
  }, 10000, buffer)
  assert(actions and actions.result, "no answer to textDocument/codeAction")
  out.action_titles = {}
  local disable
  for _, action in ipairs(actions.result) do
    table.insert(out.action_titles, action.title)
    if action.title:find("^Disable ") then
      disable = action
    end
  end
  assert(disable, "no disable-for-this-line action")
  out.edit_form = disable.edit.documentChanges and "documentChanges" or "changes"
  vim.lsp.util.apply_workspace_edit(disable.edit, client.offset_encoding or "utf-16")
  out.after_action = wait_for_diagnostics(function(found) return #found == 0 end)
  out.lines = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
  out.modified = vim.api.nvim_buf_get_option(buffer, "modified")
  vim.lsp.stop_client(client_id)
end)
out.ok = ok
if not ok then
  out.failure = tostring(failure)
end
finish()
