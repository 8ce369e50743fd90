-- Drives a headless Neovim through the docs/editors.md story with the keys the recipe maps:
-- see a finding while typing, complete a key (<C-x><C-o>), hover (K), jump to a definition
-- (gd), rename (<leader>rn), apply a quick fix (<leader>ca). Writes what it saw to
-- $BLUEPRINT_RESULT.
local result = { steps = {} }

local function save()
  local file = assert(io.open(vim.env.BLUEPRINT_RESULT, "w"))
  file:write(vim.fn.json_encode(result))
  file:close()
end

local function wait(what, predicate)
  if not vim.wait(30000, predicate, 20) then
    error("timed out waiting for " .. what)
  end
end

local function findings(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, { code = d.code, lnum = d.lnum, col = d.col, end_col = d.end_col, severity = d.severity })
  end
  return out
end

local function has(buf, code)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == code then
      return d
    end
  end
  return nil
end

local function find(buf, needle)
  for index, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(needle, 1, true)
    if col then
      return index, col - 1
    end
  end
  error("not in the buffer: " .. needle)
end

local function press(keys, flags)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), flags or "x", false)
end

local function floating_text()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      return table.concat(lines, "\n"), win
    end
  end
  return nil
end

local published = 0
local original = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(...)
  published = published + 1
  return original(...)
end

local ok, problem = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(vim.env.BLUEPRINT_FILE))
  local buf = vim.api.nvim_get_current_buf()
  wait("the server to attach", function() return next(vim.lsp.buf_get_clients(buf)) ~= nil end)
  wait("the first findings", function() return published > 0 end)
  result.steps.opened = { filetype = vim.bo[buf].filetype, findings = findings(buf) }

  -- 1. Type a misspelt transition target: the finding appears without saving.
  local row, col = find(buf, "transitions.review]")
  vim.api.nvim_win_set_cursor(0, { row, col + #"transitions." })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("ciwreveiw<Esc>", true, false, true), "x", false)
  wait("unknown-stage", function() return has(buf, "unknown-stage") ~= nil end)
  local typo = has(buf, "unknown-stage")
  result.steps.typed = {
    line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1],
    modified = vim.bo[buf].modified,
    finding = { code = typo.code, lnum = typo.lnum, col = typo.col, end_col = typo.end_col, message = typo.message },
  }

  -- 2. Complete a key: a new line in [stages.plan], "max_rev", <C-x><C-o>, take the first.
  result.steps.omnifunc = vim.bo[buf].omnifunc
  local cap_row = find(buf, "max_iterations = 10")
  vim.api.nvim_win_set_cursor(0, { cap_row, 0 })
  -- Insert mode waits for keys while the answer arrives; a timer reads the menu, then leaves.
  local labels, started, timer = {}, vim.loop.now(), vim.loop.new_timer()
  timer:start(50, 50, vim.schedule_wrap(function()
    local items = vim.fn.complete_info({ "items" }).items
    if #items == 0 and vim.loop.now() - started < 30000 then
      return
    end
    timer:stop()
    for _, item in ipairs(items) do
      table.insert(labels, item.word)
    end
    -- One match is inserted with no menu to confirm; several open the menu.
    press(vim.fn.pumvisible() == 1 and "<C-y><Esc>" or "<Esc>", "n")
  end))
  press("omax_rev<C-x><C-o>", "x!")
  result.steps.completed = { labels = labels, line = vim.api.nvim_buf_get_lines(buf, cap_row, cap_row + 1, false)[1] }
  press("dd")

  -- 3. K on a key shows what it means.
  local key_row, key_col = find(buf, "max_iterations = 10")
  vim.api.nvim_win_set_cursor(0, { key_row, key_col + 1 })
  press("K")
  wait("the hover", function() return floating_text() ~= nil end)
  local hover, hover_win = floating_text()
  result.steps.hovered = { text = hover }
  vim.api.nvim_win_close(hover_win, true)

  -- 4. Jump to the stage the other edge names.
  local edge_row, edge_col = find(buf, "[stages.fix.transitions.review]")
  vim.api.nvim_win_set_cursor(0, { edge_row, edge_col + #"[stages.fix.transitions." + 1 })
  press("gd")
  wait("the jump", function() return vim.api.nvim_win_get_cursor(0)[1] ~= edge_row end)
  local cursor = vim.api.nvim_win_get_cursor(0)
  result.steps.jumped = { row = cursor[1], col = cursor[2], line = vim.api.nvim_get_current_line() }

  -- 5. Rename the stage there.
  vim.ui.input = function(_, on_confirm) on_confirm("reviewed") end
  press("<leader>rn")
  wait("the rename", function() return vim.api.nvim_get_current_line():find("reviewed", 1, true) ~= nil end)
  result.steps.renamed = { text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") }

  -- 6. On the typo, pick the "did you mean" quick fix from the code-action menu.
  wait("findings after the rename", function()
    local d = has(buf, "unknown-stage")
    return d ~= nil and d.message:find("reviewed", 1, true) ~= nil
  end)
  vim.api.nvim_win_set_cursor(0, { row, col + #"transitions." + 1 })
  local offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      local title = item[2].title
      table.insert(offered, title)
      if title:find("^Replace") then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  press("<leader>ca")
  wait("the quick fix", function() return has(buf, "unknown-stage") == nil end)
  result.steps.fixed = {
    offered = offered,
    line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1],
    findings = findings(buf),
  }
end)

if not ok then
  result.error = tostring(problem)
end
save()
vim.cmd("qall!")
