"""What moderators work with beside the admin: worklists, translations, activity, permissions."""
