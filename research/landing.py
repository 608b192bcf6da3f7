"""Where `/` and a fresh log-in lead: each role to its own home page.

It sits in the top app because it names every role's home; it imports no view, only URL names.

Security behaviour: anyone. Visitors see the public home page; a signed-in account is only
redirected, and each destination checks access itself.
"""

from django.shortcuts import redirect, render

from crowd.access import is_researcher
from crowd.models import Worker


def landing(request):
    """Staff go to the review overview, researchers to the research page, workers to their
    dashboard; anyone else (a visitor, or an account with no role yet) sees the home page."""
    user = request.user
    if user.is_authenticated:
        if user.is_staff:
            return redirect("review:overview")
        if is_researcher(user):
            return redirect("research:home")
        if Worker.objects.filter(user=user).exists():
            return redirect("collector:dashboard")
    return render(request, "collector/home.html")
