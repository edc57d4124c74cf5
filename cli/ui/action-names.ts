// The actions the page can ask for. Pure.
export const ACTION_NAMES = ['cancel', 'resume'] as const;
