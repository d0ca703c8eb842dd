-- xosplan's language server in Neovim 0.7 (Debian 12) and later.
-- Put this file in ~/.config/nvim/plugin/ (Neovim runs it at start-up), or
-- `dofile` it from init.lua. It starts `xosplan lsp` for YAML buffers, one
-- server per root (the repository holding the file, else its folder), and
-- attaches it; the server judges only TOSCA templates, XOS recipes and
-- Tonomi manifests and leaves other YAML files alone. Needs `xosplan` on
-- PATH, and `filetype on` (the default in an init.lua set-up).
local function root_of(file)
  local dir = vim.fn.fnamemodify(file, ":p:h")
  -- .git is a folder in a clone and a file in a worktree; finddir and
  -- findfile search upwards from dir (";"), on every Neovim.
  local git = vim.fn.finddir(".git", dir .. ";")
  if git == "" then
    git = vim.fn.findfile(".git", dir .. ";")
  end
  if git == "" then
    return dir
  end
  return (vim.fn.fnamemodify(git, ":p"):gsub("/%.git/?$", ""))
end

local clients = {} -- root → client id, for Neovim 0.7
vim.api.nvim_create_autocmd("FileType", {
  pattern = "yaml",
  group = vim.api.nvim_create_augroup("xosplan_lsp", { clear = true }),
  callback = function(args)
    local root = root_of(vim.api.nvim_buf_get_name(args.buf))
    local config = { name = "xosplan", cmd = { "xosplan", "lsp" }, root_dir = root }
    if vim.lsp.start then -- Neovim 0.8 and later
      vim.lsp.start(config, { bufnr = args.buf })
      return
    end
    local id = clients[root]
    if not id or not vim.lsp.get_client_by_id(id) then
      id = vim.lsp.start_client(config)
      clients[root] = id
    end
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})
