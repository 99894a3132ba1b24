"""The public pages: views, their context, feeds, sitemaps."""
