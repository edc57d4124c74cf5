// `completion bash|zsh|fish`: scripts that ask `kubectl-cascade __complete`
// for the candidates, as kubectl's own completion asks a plugin's
// `kubectl_complete-cascade`.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const BASH = `# kubectl-cascade completion for bash: source <(kubectl-cascade completion bash)
_kubectl_cascade() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out
  out=$(kubectl-cascade __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null | grep -v '^:')
  COMPREPLY=($(compgen -W "$out" -- "$cur"))
}
complete -o nosort -F _kubectl_cascade kubectl-cascade
`;

const ZSH = `#compdef kubectl-cascade
# kubectl-cascade completion for zsh: source <(kubectl-cascade completion zsh)
_kubectl_cascade() {
  local -a out
  out=("\${(@f)$(kubectl-cascade __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -- "\${(@)out:#:*}"
}
compdef _kubectl_cascade kubectl-cascade
`;

const FISH = `# kubectl-cascade completion for fish: kubectl-cascade completion fish | source
function __kubectl_cascade_complete
    set -l words (commandline -opc)[2..-1] (commandline -ct)
    kubectl-cascade __complete $words 2>/dev/null | string match -v -r '^:'
end
complete -c kubectl-cascade -f -a '(__kubectl_cascade_complete)'
`;

export const SCRIPTS: Record<Shell, string> = { bash: BASH, zsh: ZSH, fish: FISH };
