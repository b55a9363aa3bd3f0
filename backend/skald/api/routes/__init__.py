"""The API's routes, one ``APIRouter`` module per resource; ``api.app.create_app`` assembles them, and
``api.deps`` holds what they depend on."""

from skald.api.routes import admin, campaigns, episodes, server, setup, timelines, turns

ROUTERS = (server.router, admin.router, campaigns.router, setup.router, turns.router, timelines.router,
           episodes.router)
